// $(VAR) references in env values, commands and args: the one copy of upstream's
// third_party/forked/golang/expansion, and the kubecontainer helpers built on it.
import type { EnvVar } from './schemas.js';

/**
 * Expands `$(NAME)` with `lookup(NAME)`, as upstream expansion.Expand: an unknown name stays as
 * written (`$(NAME)`), `$$` is an escaped `$`, an unterminated `$(` and any other `$x` are kept,
 * and scanning goes on after them.
 */
export function expandVariables(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') {
      out += '$';
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close < 0) {
        out += '$(';
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else {
      out += `$${next ?? ''}`;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** Upstream kubecontainer.ExpandContainerCommandAndArgs: from the container's resolved env (later entries win). */
export function expandContainerCommandAndArgs(
  command: readonly string[] | undefined,
  args: readonly string[] | undefined,
  envs: ReadonlyArray<{ name: string; value: string }>,
): { command: string[]; args: string[] } {
  const env = new Map<string, string>();
  for (const e of envs) env.set(e.name, e.value);
  const lookup = (name: string): string | undefined => env.get(name);
  return {
    command: (command ?? []).map((c) => expandVariables(c, lookup)),
    args: (args ?? []).map((a) => expandVariables(a, lookup)),
  };
}

/**
 * Upstream kubecontainer.ExpandContainerCommandOnlyStatic (exec probes): from the container's
 * literal env values only, no valueFrom.
 */
export function expandContainerCommandOnlyStatic(command: readonly string[], env: readonly EnvVar[] | undefined): string[] {
  const values = new Map<string, string>();
  for (const e of env ?? []) if (e.value !== undefined) values.set(e.name, e.value);
  return command.map((arg) => expandVariables(arg, (name) => values.get(name)));
}
