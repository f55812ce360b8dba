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
