#!/usr/bin/env node
// kubelet-ts-logs: prints a container's CRI log (rotated files included), like `kubectl logs` on the node.
import { runCommandLine, systemClock } from '@kubelet-ts/common';
import { createCriClient } from '@kubelet-ts/cri-client';
import { parseLogsArgs } from './args.js';
import { runLogsCommand } from './logs-command.js';

void runCommandLine({
  program: 'kubelet-ts-logs',
  parse: parseLogsArgs,
  abortOn: ['SIGINT', 'SIGTERM'],
  async run(args, { signal, abort }) {
    const client = createCriClient({ endpoint: args.endpoint });
    // A closed pipe (`| head`) ends the read instead of crashing.
    process.stdout.on('error', abort);
    try {
      return await runLogsCommand(args, {
        runtime: client.runtime,
        stdout: process.stdout,
        stderr: process.stderr,
        clock: systemClock,
        signal,
      });
    } finally {
      client.close();
    }
  },
});
