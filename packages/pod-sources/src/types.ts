import type { Pod } from '@kubelet-ts/api';

/**
 * API object references a kubelet can serve to static pods (kubelet-ts extension; upstream refuses
 * them all): `configMapVolumes` (configMap volumes and projected configMap sources) and
 * `secretVolumes` (secret volumes, projected secret sources, a CSI volume's nodePublishSecretRef)
 * when the kubelet has an object source such as `--static-object-dir`; `csiVolumes` (inline CSI
 * volumes) when it registers CSI drivers through `<root-dir>/plugins_registry`. Everything else
 * (service accounts and tokens, env and image pull secrets, claims…) is always refused.
 */
export type StaticPodObjectReference = 'configMapVolumes' | 'secretVolumes' | 'csiVolumes';

/**
 * A problem a source found in its input, attributed precisely: which source, which file (or URL,
 * or object), which field, and why. Formatted as `<file>: <path>: <reason>` by {@link formatSourceError}.
 */
export interface SourceError {
  /** Source name: "file", "http", "api"… */
  source: string;
  /** The manifest file, the URL, or another locator of the input. */
  file: string;
  /** Field path such as "spec.containers[0].name"; empty when the whole input is at fault. */
  path: string;
  reason: string;
}

/**
 * What a source emits. A `set` is a full snapshot of the source's pods (file and http sources send
 * only these); `add`/`update`/`delete`/`remove` are incremental changes as a watch-based API source
 * would send them (`delete` = graceful deletion, the pods carry a deletionTimestamp; `remove` = gone).
 * The pod config reads an event's pods and never changes them; a source sends a new object for a pod
 * that changed (the object merged last time, sent again, is taken as unchanged without comparing).
 */
export type SourceEvent =
  { kind: 'set'; pods: Pod[] } | { kind: 'add' | 'update' | 'delete' | 'remove'; pods: Pod[] } | { kind: 'error'; errors: SourceError[] };

/** Callback a source uses to deliver events to its consumer (normally the pod config mux). */
export type EmitSourceEvent = (event: SourceEvent) => void;

/**
 * A source of pods for the kubelet: a manifest directory, a URL, later the API server.
 * `run` starts producing events and resolves once `signal` is aborted and the source has stopped.
 * A source should send a first `set` as soon as it knows its initial state (even an empty one),
 * so the consumer can tell when every source has been seen.
 */
export interface PodSource {
  /** The source name used in `kubernetes.io/config.source` and in updates ("file", "http", "api"). */
  readonly name: string;
  run(emit: EmitSourceEvent, signal: AbortSignal, context?: SourceContext): Promise<void>;
}

/** What the consumer (the pod config mux) tells every source it starts about the kubelet. */
export interface SourceContext {
  /**
   * API object references static pods may make because this kubelet can serve them (kubelet-ts
   * extension); a source's own `allowedObjectReferences` option wins over this.
   */
  allowedObjectReferences?: readonly StaticPodObjectReference[];
}

/** Operations of the merged update stream, as upstream kubetypes.PodOperation in incremental mode. */
export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

/** One ordered update out of the mux. `pods` are copies owned by the consumer. */
export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}
