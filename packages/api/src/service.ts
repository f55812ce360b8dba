// core/v1 Service, the fields the kubelet reads (the service environment variables). Loose, like
// the other schemas: unknown fields are kept.
import { z } from 'zod';
import { ObjectMetaSchema } from './schemas.js';
import { int, str } from './schemas/primitives.js';

export const ServicePortSchema = z.looseObject({
  name: str.optional(),
  /** TCP when unset (the API server defaults it). */
  protocol: str.optional(),
  port: int,
});
export type ServicePort = z.infer<typeof ServicePortSchema>;

export const ServiceSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: ObjectMetaSchema,
  spec: z
    .looseObject({
      /** "None" for a headless service, "" (or unset) for ExternalName. */
      clusterIP: str.optional(),
      ports: z.array(ServicePortSchema).nullish(),
    })
    .default({}),
});
export type Service = z.infer<typeof ServiceSchema>;

/** Upstream v1.ClusterIPNone. */
export const CLUSTER_IP_NONE = 'None';

/** Upstream v1helper.IsServiceIPSet: a cluster IP that is neither "None" nor empty. */
export function isServiceIPSet(service: Service): boolean {
  const ip = service.spec.clusterIP ?? '';
  return ip !== CLUSTER_IP_NONE && ip !== '';
}
