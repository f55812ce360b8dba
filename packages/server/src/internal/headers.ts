import type { IncomingMessage } from 'node:http';

/**
 * The first value of a request header, as Go's `Header.Get` gives it (node joins repeated headers with
 * `, `, which would let a second Connection or Range header change the answer).
 */
export function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders as string[] | undefined;
  if (raw === undefined) {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }
  const wanted = name.toLowerCase();
  for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === wanted) return raw[i + 1];
  return undefined;
}

/** Every value of a request header, in order (Go's `req.Header[name]`). */
export function allHeaders(req: IncomingMessage, name: string): string[] {
  const raw = req.rawHeaders as string[] | undefined;
  const wanted = name.toLowerCase();
  if (raw === undefined) {
    const value = req.headers[wanted];
    return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
  }
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === wanted) values.push(raw[i + 1] as string);
  return values;
}

/**
 * Replaces every value of a header with one (Go's `Header.Set`), in both of node's views of the
 * request: `headers` for handlers, `rawHeaders` for what a proxy passes on.
 */
export function setHeader(req: IncomingMessage, name: string, value: string): void {
  const wanted = name.toLowerCase();
  req.headers[wanted] = value;
  const raw = req.rawHeaders as string[] | undefined;
  if (raw === undefined) return;
  const kept: string[] = [];
  let placed = false;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.toLowerCase() !== wanted) {
      kept.push(key, raw[i + 1] as string);
    } else if (!placed) {
      kept.push(key, value);
      placed = true;
    }
  }
  if (!placed) kept.push(name, value);
  raw.splice(0, raw.length, ...kept);
}
