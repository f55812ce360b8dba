import * as grpc from '@grpc/grpc-js';
import type { ProbeOutcome } from '../types.js';
import { joinHostPort } from './http.js';

/** grpc.health.v1 HealthCheckResponse.ServingStatus. */
export const ServingStatus = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;
const STATUS_NAMES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

export const HEALTH_CHECK_PATH = '/grpc.health.v1.Health/Check';

// grpc.health.v1 messages, encoded by hand (two fields): HealthCheckRequest { string service = 1; },
// HealthCheckResponse { ServingStatus status = 1; }.

export function encodeHealthCheckRequest(service: string): Buffer {
  if (service === '') return Buffer.alloc(0);
  const bytes = Buffer.from(service, 'utf8');
  return Buffer.concat([Buffer.from([0x0a]), encodeVarint(bytes.length), bytes]);
}

export function decodeHealthCheckRequest(buf: Buffer): string {
  let service = '';
  walkFields(buf, (field, wire, value) => {
    if (field === 1 && wire === 2 && Buffer.isBuffer(value)) service = value.toString('utf8');
  });
  return service;
}

export function encodeHealthCheckResponse(status: number): Buffer {
  return status === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x08]), encodeVarint(status)]);
}

export function decodeHealthCheckResponse(buf: Buffer): number {
  let status = 0;
  walkFields(buf, (field, wire, value) => {
    if (field === 1 && wire === 0 && typeof value === 'number') status = value;
  });
  return status;
}

function encodeVarint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

function walkFields(buf: Buffer, visit: (field: number, wire: number, value: number | Buffer) => void): void {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated varint');
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) visit(field, wire, varint());
    else if (wire === 2) {
      const len = varint();
      visit(field, wire, buf.subarray(pos, pos + len));
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

/**
 * Upstream grpcProber.Probe: `grpc.health.v1.Health/Check` over plaintext with the service name,
 * bounded by the timeout; SERVING is success, anything else (or any error) a failure with
 * upstream's output strings.
 */
export async function doGrpcProbe(
  host: string,
  port: number,
  service: string,
  timeoutMs: number,
  userAgent: string,
  signal?: AbortSignal,
): Promise<ProbeOutcome> {
  const addr = joinHostPort(host, port);
  const timeout = `${Math.round(timeoutMs / 1000)}s`;
  const client = new grpc.Client(`dns:${addr}`, grpc.credentials.createInsecure(), {
    'grpc.primary_user_agent': userAgent,
    'grpc.enable_retries': 0,
    'grpc.initial_reconnect_backoff_ms': 1000,
  });
  try {
    // Messages travel wrapped in objects: grpc-js treats a falsy message ('' or 0) as none.
    const status = await new Promise<number>((resolve, reject) => {
      const call = client.makeUnaryRequest(
        HEALTH_CHECK_PATH,
        (arg: { service: string }) => encodeHealthCheckRequest(arg.service),
        (buf: Buffer) => ({ status: decodeHealthCheckResponse(buf) }),
        { service },
        new grpc.Metadata(),
        { deadline: Date.now() + timeoutMs },
        (err, value) => {
          signal?.removeEventListener('abort', onAbort);
          if (err !== null) reject(err);
          else resolve(value?.status ?? 0);
        },
      );
      const onAbort = (): void => call.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (status !== ServingStatus.SERVING) {
      return { result: 'failure', output: `service unhealthy (responded with ${JSON.stringify(STATUS_NAMES[status] ?? String(status))})` };
    }
    return { result: 'success', output: 'service healthy' };
  } catch (err) {
    const e = err as grpc.ServiceError;
    switch (e.code) {
      case grpc.status.UNIMPLEMENTED:
        return {
          result: 'failure',
          output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${e.details}`,
        };
      case grpc.status.DEADLINE_EXCEEDED:
        return { result: 'failure', output: `timeout: health rpc did not complete within ${timeout}` };
      case grpc.status.UNAVAILABLE:
        return { result: 'failure', output: `error: failed to connect service at ${JSON.stringify(addr)}: ${e.details}` };
      default:
        return { result: 'failure', output: `error: health rpc probe failed: ${e.message ?? String(err)}` };
    }
  } finally {
    client.close();
  }
}
