import type { EnvVar } from '@kubelet-ts/api';

/**
 * Upstream ExpandContainerCommandOnlyStatic: `$(VAR)` references in an exec probe's command are
 * expanded from the container's literal env values only (no valueFrom); `$$` escapes a `$`;
 * unknown references stay as written.
 */
export function expandCommandOnlyStatic(command: readonly string[], env: readonly EnvVar[] | undefined): string[] {
  const values = new Map<string, string>();
  for (const e of env ?? []) if (e.value !== undefined) values.set(e.name, e.value);
  return command.map((arg) => expand(arg, values));
}

function expand(input: string, values: ReadonlyMap<string, string>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch !== '$' || i + 1 >= input.length) {
      out += ch;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const end = input.indexOf(')', i + 2);
      if (end < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, end);
      const value = values.get(name);
      out += value ?? `$(${name})`;
      i = end;
    } else {
      out += '$';
    }
  }
  return out;
}
