import { fromJSON } from '@grpc/proto-loader';
import type { PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { csiDescriptor } from '../gen/descriptor.js';

/** Options matching the generated types (scripts/generate.mjs): int64 as decimal strings, enums as names, all fields present. */
export const LOADER_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true } as const;

let cached: PackageDefinition | undefined;

export function csiPackageDefinition(): PackageDefinition {
  cached ??= fromJSON(csiDescriptor as Parameters<typeof fromJSON>[0], LOADER_OPTIONS);
  return cached;
}

/** The csi.v1.Node service definition. */
export function csiNodeService(): ServiceDefinition {
  const service = csiPackageDefinition()['csi.v1.Node'] as ServiceDefinition | undefined;
  if (service === undefined) throw new Error('csi.v1.Node missing from the CSI descriptor');
  return service;
}
