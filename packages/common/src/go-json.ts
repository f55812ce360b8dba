/**
 * A string as Go's encoding/json writes it (with its default HTML escaping): `<`, `>`, `&`,
 * U+2028 and U+2029 as \u escapes, \b \f \n \r \t short forms, other control characters as
 * \u00XX, and ill-formed UTF-16 (lone surrogates, which Go sees as invalid UTF-8) as \ufffd.
 */
export function goJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i += 1;
        continue;
      }
    }
    out += escapeUnit(code, text[i]!);
  }
  return out + '"';
}

const SHORT: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };

function escapeUnit(code: number, char: string): string {
  const short = SHORT[code];
  if (short !== undefined) return short;
  if (code < 0x20 || code === 0x3c || code === 0x3e || code === 0x26 || code === 0x2028 || code === 0x2029) {
    return `\\u${code.toString(16).padStart(4, '0')}`;
  }
  if (code >= 0xd800 && code <= 0xdfff) return '\\ufffd';
  return char;
}

/** `json.Marshal` of a Go `map[string]string`: keys in byte order, no spaces. */
export function goJsonStringMap(map: Readonly<Record<string, string>>): string {
  const keys = Object.keys(map).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `{${keys.map((key) => `${goJsonString(key)}:${goJsonString(map[key]!)}`).join(',')}}`;
}

/**
 * A JSON document as Go's encoding/json writes a value whose struct fields or map keys are given in
 * the order to write them: objects keep their key order (build them in Go's field order, with
 * omitempty fields left out), strings are escaped as Go escapes them, `undefined` members are dropped.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  const members = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${members.map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`).join(',')}}`;
}
