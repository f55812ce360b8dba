#!/usr/bin/env node
// kubelet-ts-logs: prints a container's CRI log (rotated files included), like `kubectl logs` on the node.
import { parseCommandLine, systemClock } from '@kubelet-ts/common';
import { createCriClient } from '@kubelet-ts/cri-client';
import { parseLogsArgs } from './args.js';
import { runLogsCommand } from './logs-command.js';

async function main(): Promise<number> {
  const parsed = parseCommandLine('kubelet-ts-logs', () => parseLogsArgs(process.argv.slice(2), process.env), console.error);
  if (!parsed.ok) return parsed.exitCode;
  const args = parsed.args;
  const client = createCriClient({ endpoint: args.endpoint });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  // A closed pipe (`| head`) ends the read instead of crashing.
  process.stdout.on('error', () => controller.abort());
  try {
    return await runLogsCommand(args, { runtime: client.runtime, stdout: process.stdout, stderr: process.stderr, clock: systemClock, signal: controller.signal });
  } catch (err) {
    console.error(`kubelet-ts-logs: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    client.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
