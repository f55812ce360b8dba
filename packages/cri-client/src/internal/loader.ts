import { fromJSON } from '@grpc/proto-loader';
import type { MethodDefinition, PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { criDescriptor } from '../gen/descriptor.js';

/** Options matching the generated types (scripts/generate.mjs): int64 as decimal strings, enums as names, all fields present. */
export const LOADER_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true } as const;

export type AnyMethodDefinition = MethodDefinition<unknown, unknown>;

let cached: PackageDefinition | undefined;

/** The CRI v1 package definition, built once from the committed JSON descriptor (no .proto at run time). */
export function criPackageDefinition(): PackageDefinition {
  cached ??= fromJSON(criDescriptor as Parameters<typeof fromJSON>[0], LOADER_OPTIONS);
  return cached;
}

/** Method definitions of one service, keyed by their lowerCamelCase name (`runPodSandbox`). */
export function serviceMethods(service: 'RuntimeService' | 'ImageService'): Map<string, AnyMethodDefinition> {
  const definition = criPackageDefinition()[`runtime.v1.${service}`] as ServiceDefinition | undefined;
  if (definition === undefined) throw new Error(`runtime.v1.${service} missing from the CRI descriptor`);
  const methods = new Map<string, AnyMethodDefinition>();
  for (const [name, method] of Object.entries(definition)) {
    methods.set(name.charAt(0).toLowerCase() + name.slice(1), method as AnyMethodDefinition);
  }
  return methods;
}
