// $(VAR) expansion of container command and args, the rules of upstream third_party/forked/golang/expansion:
// `$(NAME)` is replaced when NAME is defined and kept verbatim otherwise, `$$` escapes a `$`,
// an unterminated `$(` and any other `$x` stay as written.

/** Expands `$(VAR)` references in `input` from `env` (later entries win, as in the container's env). */
export function expandVariables(input: string, env: ReadonlyMap<string, string>): string {
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
        const value = env.get(name);
        out += value === undefined ? `$(${name})` : value;
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

/** Upstream ExpandContainerCommandAndArgs. */
export function expandCommandAndArgs(
  command: readonly string[] | undefined,
  args: readonly string[] | undefined,
  envs: ReadonlyArray<{ name: string; value: string }>,
): { command: string[]; args: string[] } {
  const env = new Map<string, string>();
  for (const e of envs) env.set(e.name, e.value);
  return {
    command: (command ?? []).map((c) => expandVariables(c, env)),
    args: (args ?? []).map((a) => expandVariables(a, env)),
  };
}
