#!/usr/bin/env node
// crictl-ts: a small crictl for debugging kubelet-ts against a CRI runtime.
import { runCommandLine, systemClock } from '@kubelet-ts/common';
import { createCriClient } from '../client.js';
import { parseArgs } from './args.js';
import { runCommand } from './commands.js';

void runCommandLine({
  program: 'crictl-ts',
  parse: parseArgs,
  async run(args, { signal }) {
    const client = createCriClient({
      endpoint: args.global.runtimeEndpoint,
      ...(args.global.imageEndpoint === undefined ? {} : { imageEndpoint: args.global.imageEndpoint }),
    });
    try {
      return await runCommand(args, {
        runtime: client.runtime,
        image: client.image,
        stdout: process.stdout,
        stderr: process.stderr,
        clock: systemClock,
        callOptions: args.global.timeoutSeconds === undefined ? {} : { timeoutMs: args.global.timeoutSeconds * 1000 },
        signal,
      });
    } finally {
      client.close();
    }
  },
});
