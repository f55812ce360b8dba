import type { Summary, SummaryOptions, SummaryProvider } from '@kubelet-ts/stats';

/** A SummaryProvider that answers a set summary (or fails with `error`), recording each call's options. */
export class FakeSummaryProvider implements SummaryProvider {
  summary: Summary;
  error: Error | undefined;
  readonly calls: Array<SummaryOptions | undefined> = [];

  constructor(summary: Summary) {
    this.summary = summary;
  }

  async get(options?: SummaryOptions): Promise<Summary> {
    this.calls.push(options);
    if (this.error !== undefined) throw this.error;
    return this.summary;
  }
}

/** The sample lines of one metric family in a text exposition (`name` or `name{…}` lines), in order. */
export function sampleLines(body: string, name: string): string[] {
  return body.split('\n').filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
}
