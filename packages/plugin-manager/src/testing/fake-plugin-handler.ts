import type { PluginHandler } from '../types.js';

/** One call a {@link FakePluginHandler} received. */
export type FakePluginHandlerCall =
  | { method: 'validatePlugin'; name: string; endpoint: string; versions: string[] }
  | { method: 'registerPlugin'; name: string; endpoint: string; versions: string[] }
  | { method: 'deregisterPlugin'; name: string; endpoint: string };

/**
 * A PluginHandler for tests: records every call, keeps what is registered (name → endpoint), and
 * refuses plugins with the errors set in `validateError` / `registerError`.
 */
export class FakePluginHandler implements PluginHandler {
  readonly calls: FakePluginHandlerCall[] = [];
  /** Registered plugins: name → endpoint. */
  readonly registered = new Map<string, string>();
  /** Thrown by validatePlugin while set. */
  validateError: Error | undefined;
  /** Thrown (as a rejection) by registerPlugin while set. */
  registerError: Error | undefined;

  validatePlugin(name: string, endpoint: string, versions: string[]): void {
    this.calls.push({ method: 'validatePlugin', name, endpoint, versions: [...versions] });
    if (this.validateError !== undefined) throw this.validateError;
  }

  async registerPlugin(name: string, endpoint: string, versions: string[]): Promise<void> {
    this.calls.push({ method: 'registerPlugin', name, endpoint, versions: [...versions] });
    if (this.registerError !== undefined) throw this.registerError;
    this.registered.set(name, endpoint);
  }

  deregisterPlugin(name: string, endpoint: string): void {
    this.calls.push({ method: 'deregisterPlugin', name, endpoint });
    if (this.registered.get(name) === endpoint) this.registered.delete(name);
  }

  /** The methods called, in order. */
  methods(): string[] {
    return this.calls.map((c) => c.method);
  }
}
