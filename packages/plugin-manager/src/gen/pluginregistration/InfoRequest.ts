// Original file: pluginregistration/v1/api.proto


export interface InfoRequest {
}

export interface InfoRequest__Output {
}
