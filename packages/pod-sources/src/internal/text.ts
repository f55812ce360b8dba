/**
 * Manifest bytes as text, as go-yaml reads them (upstream decodes every manifest and URL body with
 * sigs.k8s.io/yaml): UTF-8, or UTF-16 when a byte order mark says so; bytes that are not valid in
 * that encoding are refused ("invalid leading UTF-8 octet" upstream) rather than replaced.
 */
export function decodeManifestBytes(bytes: Uint8Array): { ok: true; text: string } | { ok: false; reason: string } {
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : undefined;
  const encoding = utf16 ?? 'utf-8';
  try {
    // ignoreBOM: false drops the byte order mark.
    return { ok: true, text: new TextDecoder(encoding, { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: `not valid ${encoding === 'utf-8' ? 'UTF-8' : `${encoding.toUpperCase()} (after its byte order mark)`}` };
  }
}
