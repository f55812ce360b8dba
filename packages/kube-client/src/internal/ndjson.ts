// Watch framing: one JSON object per line (the API server's json.Encoder), lines split across chunks.

/** Splits a byte stream into lines; a line may span many chunks, a chunk may hold many lines. */
export class LineDecoder {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  readonly #maxLineBytes: number;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** The complete lines the chunk ends (without the newline; empty lines dropped). Throws on an over-long line. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      // A line that arrived whole in one chunk is held to the limit too: cutting a stream elsewhere
      // must not change what is accepted.
      if (this.#pendingBytes + piece.length > this.#maxLineBytes) this.#tooLong();
      const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
      this.#pending = [];
      this.#pendingBytes = 0;
      if (line.length > 0 && !(line.length === 1 && line[0] === 0x0d)) lines.push(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start));
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > this.#maxLineBytes) this.#tooLong();
    }
    return lines;
  }

  #tooLong(): never {
    this.#pending = [];
    this.#pendingBytes = 0;
    throw new Error(`watch event longer than ${this.#maxLineBytes} bytes`);
  }

  /** What is left after the stream ended (a last line without a newline), or undefined. */
  end(): Buffer | undefined {
    if (this.#pending.length === 0) return undefined;
    const rest = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    return rest.toString('utf8').trim() === '' ? undefined : rest;
  }
}
