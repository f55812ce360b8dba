// Original file: runtime/v1/api.proto


export interface UpdateRuntimeConfigResponse {
}

export interface UpdateRuntimeConfigResponse__Output {
}
