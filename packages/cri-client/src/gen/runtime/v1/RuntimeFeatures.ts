// Original file: runtime/v1/api.proto


export interface RuntimeFeatures {
  'supplementalGroupsPolicy'?: (boolean);
  'userNamespacesHostNetwork'?: (boolean);
}

export interface RuntimeFeatures__Output {
  'supplementalGroupsPolicy': (boolean);
  'userNamespacesHostNetwork': (boolean);
}
