#!/usr/bin/env node
// Runs a command while holding the shared runtime's exclusive lock (scripts/runtime-lock.cjs), for
// tools that create pods on the shared containerd but are not jest suites (critest, a kubelet by
// hand): a kubelet under test kills every pod it does not own, so they must not overlap.
//
//   node scripts/with-runtime-lock.mjs -- <command> [args...]
//
// The runtime is $KUBELET_TS_RUNTIME_DIR (default /run/kubelet-ts-runtime). Exits with the command's code.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { acquireRuntimeLock, releaseRuntimeLock, runtimeLockDir } = require('./runtime-lock.cjs');

const dash = process.argv.indexOf('--');
const [command, ...args] = dash === -1 ? process.argv.slice(2) : process.argv.slice(dash + 1);
if (!command) {
  process.stderr.write('usage: node scripts/with-runtime-lock.mjs -- <command> [args...]\n');
  process.exit(2);
}
const lockDir = runtimeLockDir(process.env.KUBELET_TS_RUNTIME_DIR || '/run/kubelet-ts-runtime');
await acquireRuntimeLock(lockDir, 30 * 60_000, (holder) =>
  process.stderr.write(`waiting for pid ${holder} to finish with the shared runtime\n`),
);
const child = spawn(command, args, { stdio: 'inherit' });
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward).on('SIGTERM', forward);
child.on('exit', (code, signal) => {
  releaseRuntimeLock(lockDir);
  process.exit(code ?? (signal ? 128 : 1));
});
