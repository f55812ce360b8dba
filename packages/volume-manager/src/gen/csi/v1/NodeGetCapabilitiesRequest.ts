// Original file: csi/v1/csi.proto


export interface NodeGetCapabilitiesRequest {
}

export interface NodeGetCapabilitiesRequest__Output {
}
