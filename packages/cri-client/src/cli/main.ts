#!/usr/bin/env node
// crictl-ts: a small crictl for debugging kubelet-ts against a CRI runtime.
import { parseCommandLine, systemClock } from '@kubelet-ts/common';
import { createCriClient } from '../client.js';
import { CriError } from '../errors.js';
import { parseArgs } from './args.js';
import { runCommand } from './commands.js';

async function main(): Promise<number> {
  const parsed = parseCommandLine('crictl-ts', () => parseArgs(process.argv.slice(2), process.env), console.error);
  if (!parsed.ok) return parsed.exitCode;
  const args = parsed.args;
  const client = createCriClient({
    endpoint: args.global.runtimeEndpoint,
    ...(args.global.imageEndpoint === undefined ? {} : { imageEndpoint: args.global.imageEndpoint }),
  });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    return await runCommand(args, {
      runtime: client.runtime,
      image: client.image,
      stdout: process.stdout,
      stderr: process.stderr,
      clock: systemClock,
      callOptions: args.global.timeoutSeconds === undefined ? {} : { timeoutMs: args.global.timeoutSeconds * 1000 },
      signal: controller.signal,
    });
  } catch (err) {
    console.error(`crictl-ts: ${err instanceof CriError || err instanceof Error ? err.message : String(err)}`);
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
