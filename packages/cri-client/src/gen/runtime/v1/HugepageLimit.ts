// Original file: runtime/v1/api.proto

import type { Long } from '@grpc/proto-loader';

export interface HugepageLimit {
  'pageSize'?: (string);
  'limit'?: (number | string | Long);
}

export interface HugepageLimit__Output {
  'pageSize': (string);
  'limit': (string);
}
