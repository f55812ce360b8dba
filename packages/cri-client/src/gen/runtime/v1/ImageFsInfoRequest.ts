// Original file: runtime/v1/api.proto


export interface ImageFsInfoRequest {
}

export interface ImageFsInfoRequest__Output {
}
