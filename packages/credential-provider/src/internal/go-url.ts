// The two pieces of Go's standard library that upstream's image matching rests on, rewritten:
// net/url.Parse of "https://" + a schemeless reference, and path/filepath.Match of one DNS label.

/** The parts of a parsed URL that matching reads: the host (with any port) and the decoded path. */
export interface ParsedUrl {
  host: string;
  path: string;
}

const HEX = /^[0-9a-fA-F]{2}$/;
// Characters Go's url accepts unescaped in a host (besides letters, digits and non-ASCII bytes).
const HOST_PUNCTUATION = new Set([...'-._~!$&\'()*+,;=:[]<>"']);

function unescape(s: string, mode: 'host' | 'path'): string | { error: string } {
  if (!s.includes('%') && mode === 'path') return s;
  // Bytes, as Go's unescape works on bytes: decoded escapes and the UTF-8 of everything else.
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = String.fromCodePoint(s.codePointAt(i) ?? 0);
    if (c.length === 2) i++; // a character outside the BMP takes two code units
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!HEX.test(hex)) return { error: `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}` };
      // Go: in a host, only %25 and escapes of non-ASCII bytes are allowed.
      if (mode === 'host' && parseInt(hex[0] as string, 16) < 8 && hex !== '25') {
        return { error: `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}` };
      }
      bytes.push(parseInt(hex, 16));
      i += 2;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9]/.test(c) && !HOST_PUNCTUATION.has(c)) {
      return { error: `invalid character ${JSON.stringify(c)} in host name` };
    }
    bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

/**
 * Go's url.Parse("https://" + value), reduced to host and path, with its errors (`parse
 * "https://a:b": invalid port ":b" after host`): upstream ParseSchemelessURL.
 */
export function parseSchemelessUrl(value: string): ParsedUrl | { error: string } {
  const raw = `https://${value}`;
  const fail = (why: string): { error: string } => ({ error: `parse ${JSON.stringify(raw)}: ${why}` });
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  const hash = value.indexOf('#');
  let rest = hash < 0 ? value : value.slice(0, hash);
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const rawPath = slash < 0 ? '' : rest.slice(slash);
  const at = authority.lastIndexOf('@');
  let host = at < 0 ? authority : authority.slice(at + 1);
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close < 0) return fail("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return fail(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) {
      return fail(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
    }
  }
  const decodedHost = unescape(host, 'host');
  if (typeof decodedHost !== 'string') return fail(decodedHost.error);
  host = decodedHost;
  const path = unescape(rawPath, 'path');
  if (typeof path !== 'string') return fail(path.error);
  return { host, path };
}

/** Go's net.SplitHostPort, falling back to the whole host and no port when it fails (upstream splitURL). */
export function splitHostPort(hostport: string): { host: string; port: string } {
  const whole = { host: hostport, port: '' };
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) return whole; // missing port in address
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close < 0 || close + 1 !== colon) return whole;
    const host = hostport.slice(1, close);
    if (host.includes('[') || host.includes(']')) return whole;
    return { host, port: hostport.slice(colon + 1) };
  }
  const host = hostport.slice(0, colon);
  if (host.includes(':') || host.includes('[') || host.includes(']')) return whole; // too many colons
  return { host, port: hostport.slice(colon + 1) };
}

type GlobToken =
  | { kind: 'literal'; char: string }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'class'; negated: boolean; ranges: Array<[string, string]> };

/** The tokens of a filepath.Match pattern, or undefined when Go reports ErrBadPattern. */
function tokenize(pattern: string): GlobToken[] | undefined {
  const chars = [...pattern];
  const tokens: GlobToken[] = [];
  let i = 0;
  // One possibly escaped character of a class range; undefined for '-', ']' or the end (ErrBadPattern).
  const classChar = (): string | undefined => {
    let c = chars[i];
    if (c === undefined || c === '-' || c === ']') return undefined;
    if (c === '\\') {
      i++;
      c = chars[i];
      if (c === undefined) return undefined;
    }
    i++;
    return c;
  };
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === '*') {
      tokens.push({ kind: 'star' });
      i++;
    } else if (c === '?') {
      tokens.push({ kind: 'any' });
      i++;
    } else if (c === '\\') {
      const next = chars[i + 1];
      if (next === undefined) return undefined;
      tokens.push({ kind: 'literal', char: next });
      i += 2;
    } else if (c === '[') {
      i++;
      const negated = chars[i] === '^';
      if (negated) i++;
      const ranges: Array<[string, string]> = [];
      for (;;) {
        if (chars[i] === ']' && ranges.length > 0) {
          i++;
          break;
        }
        const lo = classChar();
        if (lo === undefined) return undefined;
        let hi = lo;
        if (chars[i] === '-') {
          i++;
          const end = classChar();
          if (end === undefined) return undefined;
          hi = end;
        }
        ranges.push([lo, hi]);
      }
      tokens.push({ kind: 'class', negated, ranges });
    } else {
      tokens.push({ kind: 'literal', char: c });
      i++;
    }
  }
  return tokens;
}

function matchTokens(tokens: readonly GlobToken[], t: number, name: readonly string[], n: number): boolean {
  for (; t < tokens.length; t++) {
    const token = tokens[t] as GlobToken;
    if (token.kind === 'star') {
      // '*' matches any run of non-separator characters.
      for (let end = n; end <= name.length; end++) {
        if (matchTokens(tokens, t + 1, name, end)) return true;
        if (name[end] === '/') return false;
      }
      return false;
    }
    const c = name[n];
    if (c === undefined) return false;
    if (token.kind === 'literal' && token.char !== c) return false;
    if (token.kind === 'any' && c === '/') return false;
    if (token.kind === 'class') {
      const inClass = token.ranges.some(
        ([lo, hi]) => (lo.codePointAt(0) ?? 0) <= (c.codePointAt(0) ?? 0) && (c.codePointAt(0) ?? 0) <= (hi.codePointAt(0) ?? 0),
      );
      if (inClass === token.negated) return false;
    }
    n++;
  }
  return n === name.length;
}

/** Go's filepath.Match on Unix (`*`, `?`, `[a-z]`, `[^…]`, `\` escapes); a malformed pattern matches nothing. */
export function globMatch(pattern: string, name: string): boolean {
  const tokens = tokenize(pattern);
  return tokens !== undefined && matchTokens(tokens, 0, [...name], 0);
}
