// One request's parameters and its sent state, shared by the REST client and the watch stream.
import type { Query, HttpMethod } from '../types.js';
import type { TransportResponse } from './transport.js';

export interface Send {
  method: HttpMethod;
  path: string;
  query: Query | undefined;
  body: Buffer | undefined;
  contentType: string | undefined;
  signal: AbortSignal | undefined;
  headers: Readonly<Record<string, string>> | undefined;
  /** The deadline (ms) of the whole exchange; undefined: none. */
  deadlineMs: number | undefined;
  /** Adds `?timeout=` (client-go does for a client with a timeout; not for watches). */
  timeoutParam: boolean;
}

export interface Sent {
  response: TransportResponse;
  /** Aborts when the deadline passes or the caller aborts; call done() once the body is consumed. */
  signal: AbortSignal;
  timedOut: () => boolean;
  done: () => void;
}
