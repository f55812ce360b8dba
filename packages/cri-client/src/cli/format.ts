// Output helpers shaped like crictl's (which uses docker/go-units and a tabwriter).

/** Left-aligned columns separated by at least three spaces, like crictl's tabwriter output. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd((widths[column] ?? 0) + 3)))
      .join('')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The first 13 characters of an ID, without a `sha256:` prefix (crictl's truncated IDs). */
export function truncateId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 13);
}

/** go-units HumanDuration + " ago", from nanoseconds since the epoch. */
export function ago(nanosecondsSinceEpoch: string, nowMs: number): string {
  const createdMs = Number(BigInt(nanosecondsSinceEpoch || '0') / 1_000_000n);
  return `${humanDuration(nowMs - createdMs)} ago`;
}

export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(ms / 3_600_000);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(hours / 24 / 365)} years`;
}

const DECIMAL_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];

/** go-units HumanSize: decimal units, three significant digits ("2.03MB", "697kB"). */
export function humanSize(bytes: number | string): string {
  let size = Number(bytes);
  let unit = 0;
  while (size >= 1000 && unit < DECIMAL_UNITS.length - 1) {
    size /= 1000;
    unit += 1;
  }
  return `${Number(size.toPrecision(3))}${DECIMAL_UNITS[unit] ?? 'B'}`;
}

/** CONTAINER_RUNNING → Running, SANDBOX_NOTREADY → NotReady. */
export function stateName(state: string): string {
  switch (state) {
    case 'SANDBOX_READY':
      return 'Ready';
    case 'SANDBOX_NOTREADY':
      return 'NotReady';
    default: {
      const word = state.replace(/^CONTAINER_/, '').toLowerCase();
      return word.charAt(0).toUpperCase() + word.slice(1);
    }
  }
}

/** Splits `repo:tag` (a registry port is not a tag). */
export function splitRepoTag(ref: string): { repo: string; tag: string } {
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.indexOf(':', lastSlash + 1);
  return colon === -1 ? { repo: ref, tag: '<none>' } : { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) };
}

/** JSON with Buffers shown as text and info values (JSON strings) parsed, as crictl prints them. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, (_key, v: unknown) => (isBufferJson(v) ? Buffer.from(v.data).toString('utf8') : v), 2)}\n`;
}

function isBufferJson(v: unknown): v is { type: 'Buffer'; data: number[] } {
  return (
    typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)
  );
}

/** Parses each value of a verbose `info` map when it is JSON, keeping it as a string otherwise. */
export function parseInfo(info: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    try {
      out[key] = JSON.parse(value) as unknown;
    } catch {
      out[key] = value;
    }
  }
  return out;
}
