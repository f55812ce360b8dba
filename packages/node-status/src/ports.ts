// The ports to the API server this package needs. The kubelet wires them to its API client; every
// call throws, on failure, an error carrying the HTTP `statusCode` and the Status `reason`, which
// this package classifies with @kubelet-ts/api's isNotFound, isAlreadyExists and isConflict.
// What they return is untrusted: it is validated here before use.
import type { Lease, Node, StrategicMergePatch } from '@kubelet-ts/api';

/** Upstream: the main and heartbeat clients' `CoreV1().Nodes()`, the calls the kubelet makes. */
export interface NodeApi {
  /** `POST /api/v1/nodes` with the whole node, status included. */
  create(node: Node): Promise<unknown>;
  /** `GET /api/v1/nodes/<name>`. */
  get(name: string): Promise<unknown>;
  /** `PATCH /api/v1/nodes/<name>/status`, `Content-Type: application/strategic-merge-patch+json`. */
  patchStatus(name: string, patch: StrategicMergePatch): Promise<unknown>;
}

/** Upstream: the heartbeat client's `CoordinationV1().Leases(namespace)`. */
export interface LeaseApi {
  /** `GET /apis/coordination.k8s.io/v1/namespaces/<namespace>/leases/<name>`. */
  get(namespace: string, name: string): Promise<unknown>;
  /** `POST …/namespaces/<metadata.namespace>/leases`. */
  create(lease: Lease): Promise<unknown>;
  /** `PUT …/leases/<metadata.name>`: `metadata.resourceVersion` is the precondition (409 Conflict when stale). */
  update(lease: Lease): Promise<unknown>;
}

/**
 * The node informer as the status updater reads it (upstream nodeLister): the last Node the watch
 * delivered, or undefined. A structural subset of kube-client's `Informer<Node>` (keys are names).
 */
export interface NodeLister {
  get(name: string): unknown;
  /**
   * False while the informer's watch is down or has not caught up since it failed (kube-client's
   * `Informer.isCurrent`): the status update then reads the node from the API server instead.
   */
  isCurrent?(): boolean;
}
