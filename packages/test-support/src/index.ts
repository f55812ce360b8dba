/**
 * Helpers shared by the integration tests of every package: they run against the real
 * containerd of scripts/test-runtime.sh, whose variables the jest global setup has loaded.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A variable of the runtime test environment. */
export function runtimeEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: start the runtime with bash scripts/test-runtime.sh up`);
  return value;
}

/**
 * Polls `check` until it returns a value other than undefined or false, or fails after
 * `timeoutMs` with the last error it threw.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : lastError === undefined ? '' : `: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Collects teardown steps and runs them in reverse order, never stopping at a failing one. */
export class Cleanup {
  readonly #steps: (() => Promise<unknown> | unknown)[] = [];

  add(step: () => Promise<unknown> | unknown): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    const errors: unknown[] = [];
    while (this.#steps.length > 0) {
      const step = this.#steps.pop();
      try {
        await step?.();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'cleanup failed');
  }
}

/** Removes a pod cgroup directory (and its leftover children) in every v1 hierarchy and in the unified one. */
export function removeCgroupTree(cgroupParent: string, cgroupFsRoot = '/sys/fs/cgroup'): void {
  for (const controller of fs.readdirSync(cgroupFsRoot)) {
    const dir = path.join(cgroupFsRoot, controller, cgroupParent);
    if (!fs.existsSync(dir)) continue;
    for (const child of fs.readdirSync(dir, { withFileTypes: true })) {
      if (child.isDirectory()) fs.rmdirSync(path.join(dir, child.name));
    }
    fs.rmdirSync(dir);
  }
}

/** The CRI calls `removeRuntimePod` needs; structurally a cri-client RuntimeService. */
export interface PodRemovalRuntime {
  listContainers(request: { filter: { labelSelector: Record<string, string> } }): Promise<{ containers: Array<{ id: string }> }>;
  removeContainer(request: { containerId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
  listPodSandbox(request: { filter: { labelSelector: Record<string, string> } }): Promise<{ items: Array<{ id: string }> }>;
  stopPodSandbox(request: { podSandboxId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
  removePodSandbox(request: { podSandboxId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
}

/** Stops and removes through CRI every container and sandbox labelled with the pod UID. */
export async function removeRuntimePod(runtime: PodRemovalRuntime, uid: string): Promise<void> {
  const filter = { labelSelector: { 'io.kubernetes.pod.uid': uid } };
  const { containers } = await runtime.listContainers({ filter });
  for (const c of containers) await runtime.removeContainer({ containerId: c.id }, { ignoreNotFound: true });
  const { items } = await runtime.listPodSandbox({ filter });
  for (const s of items) {
    await runtime.stopPodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
    await runtime.removePodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
  }
}

/**
 * The usage snippet a package's readme test runs: the lines of the test file `source` between the
 * `begin` and `end` marker comments, dedented by the end marker's indentation. The test then checks
 * that the README holds exactly these lines, so the README's example is code that ran.
 */
export function readmeSnippet(source: string, markers: { begin?: string; end?: string } = {}): string {
  const begin = markers.begin ?? '// README:begin';
  const end = markers.end ?? '// README:end';
  const start = source.indexOf(begin);
  const stop = source.indexOf(end, start);
  if (start < 0 || stop < 0) throw new Error(`markers ${begin} … ${end} not found`);
  const indent = /[ \t]*$/.exec(source.slice(0, stop))?.[0] ?? '';
  const snippet = source
    .slice(source.indexOf('\n', start) + 1, stop - indent.length)
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n')
    .trimEnd();
  // An empty snippet would make `expect(readme).toContain(snippet)` pass vacuously.
  if (snippet.trim() === '') throw new Error(`nothing between ${begin} and ${end}`);
  return snippet;
}
