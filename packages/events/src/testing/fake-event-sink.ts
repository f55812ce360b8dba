import type { Event } from '@kubelet-ts/api';
import type { EventPatch, EventSink } from '../types.js';

export type FakeEventSinkCall = { verb: 'create'; event: Event } | { verb: 'patch'; namespace: string; name: string; patch: EventPatch };

/** An error as an API client throws it for a server's answer: `statusCode`, `reason`, optional `details`. */
export class FakeStatusError extends Error {
  readonly statusCode: number;
  readonly reason: string;
  readonly details: { causes?: { type: string }[] } | undefined;

  constructor(statusCode: number, reason: string, message = reason, details?: { causes?: { type: string }[] }) {
    super(message);
    this.name = 'FakeStatusError';
    this.statusCode = statusCode;
    this.reason = reason;
    this.details = details;
  }
}

/** An error without a status: the server could not be reached (connection refused, reset, timeout). */
export function fakeTransportError(message = 'connect ECONNREFUSED 127.0.0.1:6443'): Error {
  return Object.assign(new Error(message), { code: 'ECONNREFUSED' });
}

/**
 * An EventSink that keeps events as an API server would (by namespace and name, with a
 * resourceVersion), records every call, and fails the next calls with the errors scripted in
 * `failures` (`'create'`, `'patch'` or `'any'`). It checks what the server checks: a create of an
 * existing name is AlreadyExists, a patch of a missing event NotFound, and legacy validation wants
 * `involvedObject.namespace` to be the event's namespace.
 */
export class FakeEventSink implements EventSink {
  readonly calls: FakeEventSinkCall[] = [];
  readonly failures: { verb: 'create' | 'patch' | 'any'; error: unknown }[] = [];
  readonly #stored = new Map<string, Event>();
  #resourceVersion = 0;

  async create(event: Event): Promise<Event> {
    this.calls.push({ verb: 'create', event: structuredClone(event) });
    this.#fail('create');
    const { namespace, name } = event.metadata;
    const objectNamespace = event.involvedObject.namespace ?? '';
    if (objectNamespace !== namespace && !(objectNamespace === '' && namespace === 'default')) {
      throw new FakeStatusError(
        422,
        'Invalid',
        `Event "${name}" is invalid: involvedObject.namespace: Invalid value: "${objectNamespace}": does not match event.namespace`,
      );
    }
    if (this.#stored.has(`${namespace}/${name}`)) throw new FakeStatusError(409, 'AlreadyExists', `events "${name}" already exists`);
    const stored: Event = structuredClone(event);
    stored.metadata.uid = `uid-${name}`;
    stored.metadata.resourceVersion = String(++this.#resourceVersion);
    this.#stored.set(`${namespace}/${name}`, stored);
    return structuredClone(stored);
  }

  async patch(namespace: string, name: string, patch: EventPatch): Promise<Event> {
    this.calls.push({ verb: 'patch', namespace, name, patch: { ...patch } });
    this.#fail('patch');
    const stored = this.#stored.get(`${namespace}/${name}`);
    if (stored === undefined) throw new FakeStatusError(404, 'NotFound', `events "${name}" not found`);
    Object.assign(stored, patch);
    stored.metadata.resourceVersion = String(++this.#resourceVersion);
    return structuredClone(stored);
  }

  /** The stored events, in creation order. */
  get events(): Event[] {
    return [...this.#stored.values()].map((e) => structuredClone(e));
  }

  /** One stored event. */
  get(namespace: string, name: string): Event | undefined {
    const e = this.#stored.get(`${namespace}/${name}`);
    return e === undefined ? undefined : structuredClone(e);
  }

  /** Forgets a stored event, as the API server does after its event TTL. */
  delete(namespace: string, name: string): void {
    this.#stored.delete(`${namespace}/${name}`);
  }

  /** The verbs of the calls so far, e.g. `['create', 'patch']`. */
  verbs(): string[] {
    return this.calls.map((c) => c.verb);
  }

  #fail(verb: 'create' | 'patch'): void {
    const index = this.failures.findIndex((f) => f.verb === verb || f.verb === 'any');
    if (index < 0) return;
    const [failure] = this.failures.splice(index, 1);
    throw failure?.error;
  }
}
