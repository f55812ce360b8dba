/** PEM (RFC 7468) blocks: what certificates, keys and requests travel in. */
export interface PemBlock {
  type: string;
  der: Buffer;
}

export function encodePem(type: string, der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** Every well-formed block in `text`, in order; anything between blocks is ignored, as Go's pem.Decode loop does. */
export function decodePemBlocks(text: string | Buffer): PemBlock[] {
  const source = typeof text === 'string' ? text : text.toString('latin1');
  const blocks: PemBlock[] = [];
  for (const match of source.matchAll(BLOCK)) {
    const [, type = '', body = ''] = match;
    // Headers (Proc-Type…) are not used by anything the kubelet reads; a block with them is skipped.
    if (body.includes(':')) continue;
    blocks.push({ type, der: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
  }
  return blocks;
}
