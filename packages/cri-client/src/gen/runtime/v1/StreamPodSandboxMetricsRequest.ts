// Original file: runtime/v1/api.proto


export interface StreamPodSandboxMetricsRequest {
}

export interface StreamPodSandboxMetricsRequest__Output {
}
