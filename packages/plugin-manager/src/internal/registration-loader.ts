import { fromJSON } from '@grpc/proto-loader';
import type { PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { registrationDescriptor } from '../gen/descriptor.js';

/** Options matching the generated types (scripts/generate.mjs): int64 as decimal strings, enums as names, all fields present. */
const LOADER_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true } as const;

let cached: PackageDefinition | undefined;

/** The pluginregistration.Registration service definition (kubelet plugin registration API v1). */
export function registrationService(): ServiceDefinition {
  cached ??= fromJSON(registrationDescriptor as Parameters<typeof fromJSON>[0], LOADER_OPTIONS);
  const service = cached['pluginregistration.Registration'] as ServiceDefinition | undefined;
  if (service === undefined) throw new Error('pluginregistration.Registration missing from the registration descriptor');
  return service;
}
