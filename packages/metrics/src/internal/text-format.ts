import type { MetricFamily } from '../types.js';

const escapeHelp = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** A sample value as the text format writes it (Go's +Inf, -Inf and NaN spellings). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Families in text format 0.0.4: HELP, TYPE, then one line per sample with its timestamp when it has one. */
export function renderFamilies(families: readonly MetricFamily[]): string {
  let out = '';
  for (const family of families) {
    out += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`;
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels ?? {});
      const labelText = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
      const timestamp = sample.timestampMs === undefined ? '' : ` ${Math.round(sample.timestampMs)}`;
      out += `${family.name}${labelText} ${formatValue(sample.value)}${timestamp}\n`;
    }
  }
  return out;
}
