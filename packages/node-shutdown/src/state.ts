import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NodeShutdownError } from './errors.js';

/** The last shutdown as graceful_node_shutdown_state keeps it (Unix ms; 0 for Go's zero time). */
export interface GracefulShutdownState {
  startTimeMs: number;
  endTimeMs: number;
}

/** Go's zero time.Time, as encoding/json writes it. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';
const stateSchema = z.object({ startTime: z.string().optional(), endTime: z.string().optional() });

/** Go's RFC3339Nano in UTC: fractional seconds without trailing zeros. */
export function formatGoTime(ms: number): string {
  if (ms === 0) return GO_ZERO_TIME;
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac === '' ? 'Z' : `.${frac}Z`));
}

function parseGoTime(value: string | undefined, file: string): number {
  if (value === undefined || value === GO_ZERO_TIME) return 0;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new NodeShutdownError('STATE', `${file}: ${JSON.stringify(value)} is not a time`);
  return ms;
}

/** Upstream localStorage.Load: a missing file is no shutdown yet. */
export async function loadShutdownState(file: string): Promise<GracefulShutdownState> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { startTimeMs: 0, endTimeMs: 0 };
    throw new NodeShutdownError('STATE', `${file}: ${(err as Error).message}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new NodeShutdownError('STATE', `${file}: not JSON`, { cause: err });
  }
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) throw new NodeShutdownError('STATE', `${file}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return { startTimeMs: parseGoTime(parsed.data.startTime, file), endTimeMs: parseGoTime(parsed.data.endTime, file) };
}

/** Upstream localStorage.Store: JSON as Go marshals the struct, written atomically (temp file, fsync, rename), mode 0644. */
export async function storeShutdownState(file: string, state: GracefulShutdownState): Promise<void> {
  const body = JSON.stringify({ startTime: formatGoTime(state.startTimeMs), endTime: formatGoTime(state.endTimeMs) });
  const tmp = path.join(path.dirname(file), `.tmp-${path.basename(file)}${randomBytes(4).toString('hex')}`);
  try {
    const handle = await fs.open(tmp, 'w', 0o644);
    try {
      await handle.chmod(0o644);
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw new NodeShutdownError('STATE', `${file}: ${(err as Error).message}`, { cause: err });
  }
}
