// Original file: runtime/v1/api.proto


export interface ListMetricDescriptorsRequest {
}

export interface ListMetricDescriptorsRequest__Output {
}
