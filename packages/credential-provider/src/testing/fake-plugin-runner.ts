import type { PluginExecRequest, PluginExecResult, PluginRunner } from '../plugin.js';

/** What the fake answers one run with: a result, a thrown error, or `'hang'` (pending until aborted). */
export type FakePluginReply = Partial<PluginExecResult> | Error | 'hang';

/**
 * A PluginRunner that runs nothing: each call is recorded (`calls`, with the decoded request) and
 * answered by `reply` (default: exit 0 with empty output). A `'hang'` reply stays pending until
 * the run's signal aborts (the plugin's timeout on a fake clock), then rejects as the real runner.
 */
export class FakePluginRunner implements PluginRunner {
  readonly calls: Array<PluginExecRequest & { request: unknown }> = [];
  reply: (request: PluginExecRequest) => FakePluginReply = () => ({});

  /** Answers every run with this CredentialProviderResponse (serialized as the plugin would). */
  respondWith(response: unknown): this {
    this.reply = () => ({ stdout: JSON.stringify(response) });
    return this;
  }

  run(request: PluginExecRequest): Promise<PluginExecResult> {
    this.calls.push({ ...request, request: JSON.parse(request.stdin) as unknown });
    const reply = this.reply(request);
    if (reply instanceof Error) return Promise.reject(reply);
    if (reply === 'hang') {
      return new Promise<PluginExecResult>((_resolve, reject) => {
        if (request.signal.aborted) reject(request.signal.reason);
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      });
    }
    return Promise.resolve({ stdout: '', stderr: '', exitCode: 0, signal: null, ...reply });
  }
}
