import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CapacityRange as _csi_v1_CapacityRange, CapacityRange__Output as _csi_v1_CapacityRange__Output } from './csi/v1/CapacityRange.js';
import type { NodeClient as _csi_v1_NodeClient, NodeDefinition as _csi_v1_NodeDefinition } from './csi/v1/Node.js';
import type { NodeExpandVolumeRequest as _csi_v1_NodeExpandVolumeRequest, NodeExpandVolumeRequest__Output as _csi_v1_NodeExpandVolumeRequest__Output } from './csi/v1/NodeExpandVolumeRequest.js';
import type { NodeExpandVolumeResponse as _csi_v1_NodeExpandVolumeResponse, NodeExpandVolumeResponse__Output as _csi_v1_NodeExpandVolumeResponse__Output } from './csi/v1/NodeExpandVolumeResponse.js';
import type { NodeGetCapabilitiesRequest as _csi_v1_NodeGetCapabilitiesRequest, NodeGetCapabilitiesRequest__Output as _csi_v1_NodeGetCapabilitiesRequest__Output } from './csi/v1/NodeGetCapabilitiesRequest.js';
import type { NodeGetCapabilitiesResponse as _csi_v1_NodeGetCapabilitiesResponse, NodeGetCapabilitiesResponse__Output as _csi_v1_NodeGetCapabilitiesResponse__Output } from './csi/v1/NodeGetCapabilitiesResponse.js';
import type { NodeGetInfoRequest as _csi_v1_NodeGetInfoRequest, NodeGetInfoRequest__Output as _csi_v1_NodeGetInfoRequest__Output } from './csi/v1/NodeGetInfoRequest.js';
import type { NodeGetInfoResponse as _csi_v1_NodeGetInfoResponse, NodeGetInfoResponse__Output as _csi_v1_NodeGetInfoResponse__Output } from './csi/v1/NodeGetInfoResponse.js';
import type { NodeGetVolumeStatsRequest as _csi_v1_NodeGetVolumeStatsRequest, NodeGetVolumeStatsRequest__Output as _csi_v1_NodeGetVolumeStatsRequest__Output } from './csi/v1/NodeGetVolumeStatsRequest.js';
import type { NodeGetVolumeStatsResponse as _csi_v1_NodeGetVolumeStatsResponse, NodeGetVolumeStatsResponse__Output as _csi_v1_NodeGetVolumeStatsResponse__Output } from './csi/v1/NodeGetVolumeStatsResponse.js';
import type { NodePublishVolumeRequest as _csi_v1_NodePublishVolumeRequest, NodePublishVolumeRequest__Output as _csi_v1_NodePublishVolumeRequest__Output } from './csi/v1/NodePublishVolumeRequest.js';
import type { NodePublishVolumeResponse as _csi_v1_NodePublishVolumeResponse, NodePublishVolumeResponse__Output as _csi_v1_NodePublishVolumeResponse__Output } from './csi/v1/NodePublishVolumeResponse.js';
import type { NodeServiceCapability as _csi_v1_NodeServiceCapability, NodeServiceCapability__Output as _csi_v1_NodeServiceCapability__Output } from './csi/v1/NodeServiceCapability.js';
import type { NodeStageVolumeRequest as _csi_v1_NodeStageVolumeRequest, NodeStageVolumeRequest__Output as _csi_v1_NodeStageVolumeRequest__Output } from './csi/v1/NodeStageVolumeRequest.js';
import type { NodeStageVolumeResponse as _csi_v1_NodeStageVolumeResponse, NodeStageVolumeResponse__Output as _csi_v1_NodeStageVolumeResponse__Output } from './csi/v1/NodeStageVolumeResponse.js';
import type { NodeUnpublishVolumeRequest as _csi_v1_NodeUnpublishVolumeRequest, NodeUnpublishVolumeRequest__Output as _csi_v1_NodeUnpublishVolumeRequest__Output } from './csi/v1/NodeUnpublishVolumeRequest.js';
import type { NodeUnpublishVolumeResponse as _csi_v1_NodeUnpublishVolumeResponse, NodeUnpublishVolumeResponse__Output as _csi_v1_NodeUnpublishVolumeResponse__Output } from './csi/v1/NodeUnpublishVolumeResponse.js';
import type { NodeUnstageVolumeRequest as _csi_v1_NodeUnstageVolumeRequest, NodeUnstageVolumeRequest__Output as _csi_v1_NodeUnstageVolumeRequest__Output } from './csi/v1/NodeUnstageVolumeRequest.js';
import type { NodeUnstageVolumeResponse as _csi_v1_NodeUnstageVolumeResponse, NodeUnstageVolumeResponse__Output as _csi_v1_NodeUnstageVolumeResponse__Output } from './csi/v1/NodeUnstageVolumeResponse.js';
import type { Topology as _csi_v1_Topology, Topology__Output as _csi_v1_Topology__Output } from './csi/v1/Topology.js';
import type { VolumeCapability as _csi_v1_VolumeCapability, VolumeCapability__Output as _csi_v1_VolumeCapability__Output } from './csi/v1/VolumeCapability.js';
import type { VolumeCondition as _csi_v1_VolumeCondition, VolumeCondition__Output as _csi_v1_VolumeCondition__Output } from './csi/v1/VolumeCondition.js';
import type { VolumeUsage as _csi_v1_VolumeUsage, VolumeUsage__Output as _csi_v1_VolumeUsage__Output } from './csi/v1/VolumeUsage.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  csi: {
    v1: {
      CapacityRange: MessageTypeDefinition<_csi_v1_CapacityRange, _csi_v1_CapacityRange__Output>
      Node: SubtypeConstructor<typeof grpc.Client, _csi_v1_NodeClient> & { service: _csi_v1_NodeDefinition }
      NodeExpandVolumeRequest: MessageTypeDefinition<_csi_v1_NodeExpandVolumeRequest, _csi_v1_NodeExpandVolumeRequest__Output>
      NodeExpandVolumeResponse: MessageTypeDefinition<_csi_v1_NodeExpandVolumeResponse, _csi_v1_NodeExpandVolumeResponse__Output>
      NodeGetCapabilitiesRequest: MessageTypeDefinition<_csi_v1_NodeGetCapabilitiesRequest, _csi_v1_NodeGetCapabilitiesRequest__Output>
      NodeGetCapabilitiesResponse: MessageTypeDefinition<_csi_v1_NodeGetCapabilitiesResponse, _csi_v1_NodeGetCapabilitiesResponse__Output>
      NodeGetInfoRequest: MessageTypeDefinition<_csi_v1_NodeGetInfoRequest, _csi_v1_NodeGetInfoRequest__Output>
      NodeGetInfoResponse: MessageTypeDefinition<_csi_v1_NodeGetInfoResponse, _csi_v1_NodeGetInfoResponse__Output>
      NodeGetVolumeStatsRequest: MessageTypeDefinition<_csi_v1_NodeGetVolumeStatsRequest, _csi_v1_NodeGetVolumeStatsRequest__Output>
      NodeGetVolumeStatsResponse: MessageTypeDefinition<_csi_v1_NodeGetVolumeStatsResponse, _csi_v1_NodeGetVolumeStatsResponse__Output>
      NodePublishVolumeRequest: MessageTypeDefinition<_csi_v1_NodePublishVolumeRequest, _csi_v1_NodePublishVolumeRequest__Output>
      NodePublishVolumeResponse: MessageTypeDefinition<_csi_v1_NodePublishVolumeResponse, _csi_v1_NodePublishVolumeResponse__Output>
      NodeServiceCapability: MessageTypeDefinition<_csi_v1_NodeServiceCapability, _csi_v1_NodeServiceCapability__Output>
      NodeStageVolumeRequest: MessageTypeDefinition<_csi_v1_NodeStageVolumeRequest, _csi_v1_NodeStageVolumeRequest__Output>
      NodeStageVolumeResponse: MessageTypeDefinition<_csi_v1_NodeStageVolumeResponse, _csi_v1_NodeStageVolumeResponse__Output>
      NodeUnpublishVolumeRequest: MessageTypeDefinition<_csi_v1_NodeUnpublishVolumeRequest, _csi_v1_NodeUnpublishVolumeRequest__Output>
      NodeUnpublishVolumeResponse: MessageTypeDefinition<_csi_v1_NodeUnpublishVolumeResponse, _csi_v1_NodeUnpublishVolumeResponse__Output>
      NodeUnstageVolumeRequest: MessageTypeDefinition<_csi_v1_NodeUnstageVolumeRequest, _csi_v1_NodeUnstageVolumeRequest__Output>
      NodeUnstageVolumeResponse: MessageTypeDefinition<_csi_v1_NodeUnstageVolumeResponse, _csi_v1_NodeUnstageVolumeResponse__Output>
      Topology: MessageTypeDefinition<_csi_v1_Topology, _csi_v1_Topology__Output>
      VolumeCapability: MessageTypeDefinition<_csi_v1_VolumeCapability, _csi_v1_VolumeCapability__Output>
      VolumeCondition: MessageTypeDefinition<_csi_v1_VolumeCondition, _csi_v1_VolumeCondition__Output>
      VolumeUsage: MessageTypeDefinition<_csi_v1_VolumeUsage, _csi_v1_VolumeUsage__Output>
    }
  }
}

