import { open } from 'node:fs/promises';
import { parseCriLogLine } from '@kubelet-ts/cri-client';
import type { CriLogRecord } from '@kubelet-ts/cri-client';

/** Upstream limits for termination messages (kubecontainer.MaxContainerTerminationMessage*). */
export const MAX_TERMINATION_MESSAGE_BYTES = 4096;
export const MAX_TERMINATION_MESSAGE_LOG_BYTES = 2048;
export const MAX_TERMINATION_MESSAGE_LOG_LINES = 80;

/** Reads at most `maxBytes` from the start of a file; '' when it cannot be read. */
export async function readFileHead(path: string, maxBytes: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
    const buf = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(buf, 0, maxBytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

/** Reads at most `maxBytes` from the end of a file. */
async function readFileTail(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    return buf;
  } finally {
    await handle.close();
  }
}

/**
 * The container's output from CRI log lines (cri-client's parser), joining partial ('P') records
 * in file order as upstream's ReadLogs writes them: each complete line with its newline, a last
 * partial one (output that did not end in a newline) without. Lines that do not parse are skipped.
 */
export function parseCriLog(text: string): string[] {
  const lines: string[] = [];
  let partial = '';
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let record: CriLogRecord;
    try {
      record = parseCriLogLine(raw);
    } catch {
      continue;
    }
    const content = record.content.toString('utf8');
    if (record.partial) {
      partial += content;
      continue;
    }
    lines.push(`${partial}${content}\n`);
    partial = '';
  }
  if (partial !== '') lines.push(partial);
  return lines;
}

/**
 * Upstream readLastStringFromContainerLogs: the last 80 lines of the container's log, at most
 * the last 2 KiB of them. '' when the log cannot be read.
 */
export async function readLastLogLines(
  logPath: string,
  maxLines = MAX_TERMINATION_MESSAGE_LOG_LINES,
  maxBytes = MAX_TERMINATION_MESSAGE_LOG_BYTES,
): Promise<string> {
  let raw: Buffer;
  try {
    // CRI framing roughly doubles short lines; read generously and cut after parsing.
    raw = await readFileTail(logPath, 64 * 1024);
  } catch {
    return '';
  }
  let text = raw.toString('utf8');
  // Drop a first line cut in the middle by the tail read.
  const firstNewline = text.indexOf('\n');
  if (raw.length === 64 * 1024 && firstNewline >= 0) text = text.slice(firstNewline + 1);
  const lines = parseCriLog(text).slice(-maxLines);
  const joined = lines.join('');
  const bytes = Buffer.from(joined, 'utf8');
  return bytes.length <= maxBytes ? joined : bytes.subarray(bytes.length - maxBytes).toString('utf8');
}
