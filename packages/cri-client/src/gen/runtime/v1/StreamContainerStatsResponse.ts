// Original file: runtime/v1/api.proto

import type { ContainerStats as _runtime_v1_ContainerStats, ContainerStats__Output as _runtime_v1_ContainerStats__Output } from '../../runtime/v1/ContainerStats.js';

export interface StreamContainerStatsResponse {
  'containerStats'?: (_runtime_v1_ContainerStats)[];
}

export interface StreamContainerStatsResponse__Output {
  'containerStats': (_runtime_v1_ContainerStats__Output)[];
}
