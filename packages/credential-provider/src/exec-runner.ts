import { spawn } from 'node:child_process';
import type { PluginExecRequest, PluginExecResult, PluginRunner } from './plugin.js';

/**
 * The real plugin runner: spawns `request.command` with its args and environment (no shell),
 * writes the request to stdin and collects stdout and stderr; an abort (the timeout) kills the
 * process with SIGKILL, as Go's exec.CommandContext does, and rejects with the signal's reason.
 */
export function createExecPluginRunner(): PluginRunner {
  return {
    run(request: PluginExecRequest): Promise<PluginExecResult> {
      return new Promise<PluginExecResult>((resolve, reject) => {
        if (request.signal.aborted) {
          reject(request.signal.reason);
          return;
        }
        const child = spawn(request.command, [...request.args], { env: { ...request.env }, stdio: ['pipe', 'pipe', 'pipe'] });
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        let settled = false;
        const onAbort = (): void => {
          child.kill('SIGKILL');
          if (!settled) {
            settled = true;
            reject(request.signal.reason);
          }
        };
        request.signal.addEventListener('abort', onAbort, { once: true });
        child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
        // A plugin that exits without reading stdin makes the write fail with EPIPE: its exit status tells.
        child.stdin.on('error', () => undefined);
        child.on('error', (err) => {
          request.signal.removeEventListener('abort', onAbort);
          if (!settled) {
            settled = true;
            reject(err);
          }
        });
        child.on('close', (exitCode, signal) => {
          request.signal.removeEventListener('abort', onAbort);
          if (settled) return;
          settled = true;
          resolve({
            stdout: Buffer.concat(stdout).toString('utf8'),
            stderr: Buffer.concat(stderr).toString('utf8'),
            exitCode,
            signal,
          });
        });
        child.stdin.end(request.stdin);
      });
    },
  };
}
