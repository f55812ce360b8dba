// Volumes and their sources.
import { z } from 'zod';
import { quantitySchema } from '../quantity.js';
import { ObjectFieldSelectorSchema, ResourceFieldSelectorSchema } from './env.js';
import { str, int, bool, stringMap } from './primitives.js';

export const KeyToPathSchema = z.looseObject({ key: str, path: str, mode: int.optional() });
export type KeyToPath = z.infer<typeof KeyToPathSchema>;

export const EmptyDirVolumeSourceSchema = z.looseObject({ medium: str.optional(), sizeLimit: quantitySchema.optional() });
export const HostPathVolumeSourceSchema = z.looseObject({ path: str, type: str.optional() });
export const ConfigMapVolumeSourceSchema = z.looseObject({
  name: str.optional(),
  items: z.array(KeyToPathSchema).optional(),
  defaultMode: int.optional(),
  optional: bool.optional(),
});
export const SecretVolumeSourceSchema = z.looseObject({
  secretName: str.optional(),
  items: z.array(KeyToPathSchema).optional(),
  defaultMode: int.optional(),
  optional: bool.optional(),
});
export const DownwardAPIVolumeFileSchema = z.looseObject({
  path: str,
  fieldRef: ObjectFieldSelectorSchema.optional(),
  resourceFieldRef: ResourceFieldSelectorSchema.optional(),
  mode: int.optional(),
});
export const DownwardAPIVolumeSourceSchema = z.looseObject({
  items: z.array(DownwardAPIVolumeFileSchema).optional(),
  defaultMode: int.optional(),
});
export const ProjectedVolumeSourceSchema = z.looseObject({
  sources: z.array(z.looseObject({})).optional(),
  defaultMode: int.optional(),
});
export const CSIVolumeSourceSchema = z.looseObject({
  driver: str,
  readOnly: bool.optional(),
  fsType: str.optional(),
  volumeAttributes: stringMap.optional(),
  nodePublishSecretRef: z.looseObject({ name: str.optional() }).optional(),
});
export const PersistentVolumeClaimVolumeSourceSchema = z.looseObject({ claimName: str, readOnly: bool.optional() });

export type EmptyDirVolumeSource = z.infer<typeof EmptyDirVolumeSourceSchema>;
export type HostPathVolumeSource = z.infer<typeof HostPathVolumeSourceSchema>;
export type ConfigMapVolumeSource = z.infer<typeof ConfigMapVolumeSourceSchema>;
export type SecretVolumeSource = z.infer<typeof SecretVolumeSourceSchema>;
export type DownwardAPIVolumeFile = z.infer<typeof DownwardAPIVolumeFileSchema>;
export type DownwardAPIVolumeSource = z.infer<typeof DownwardAPIVolumeSourceSchema>;
export type ProjectedVolumeSource = z.infer<typeof ProjectedVolumeSourceSchema>;
export type CSIVolumeSource = z.infer<typeof CSIVolumeSourceSchema>;
export type PersistentVolumeClaimVolumeSource = z.infer<typeof PersistentVolumeClaimVolumeSourceSchema>;

/** Volume source keys the kubelet knows by name; others (nfs, iscsi, ephemeral, image…) pass through loosely. */
export const VOLUME_SOURCE_KEYS = [
  'emptyDir',
  'hostPath',
  'configMap',
  'secret',
  'downwardAPI',
  'projected',
  'csi',
  'persistentVolumeClaim',
  'ephemeral',
  'image',
  'nfs',
  'iscsi',
  'rbd',
  'cephfs',
  'fc',
  'flexVolume',
  'local',
  'gitRepo',
  'glusterfs',
  'awsElasticBlockStore',
  'gcePersistentDisk',
  'azureDisk',
  'azureFile',
  'vsphereVolume',
  'cinder',
  'flocker',
  'quobyte',
  'portworxVolume',
  'photonPersistentDisk',
  'scaleIO',
  'storageos',
] as const;

export const VolumeSchema = z.looseObject({
  name: str,
  emptyDir: EmptyDirVolumeSourceSchema.optional(),
  hostPath: HostPathVolumeSourceSchema.optional(),
  configMap: ConfigMapVolumeSourceSchema.optional(),
  secret: SecretVolumeSourceSchema.optional(),
  downwardAPI: DownwardAPIVolumeSourceSchema.optional(),
  projected: ProjectedVolumeSourceSchema.optional(),
  csi: CSIVolumeSourceSchema.optional(),
  persistentVolumeClaim: PersistentVolumeClaimVolumeSourceSchema.optional(),
  ephemeral: z.looseObject({}).optional(),
  image: z.looseObject({ reference: str.optional(), pullPolicy: str.optional() }).optional(),
});
export type Volume = z.infer<typeof VolumeSchema>;
