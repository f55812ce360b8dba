import type { ValidationIssue } from '../../validation-issue.js';

export const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

const quoteList = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

export class Issues {
  readonly list: ValidationIssue[] = [];
  required(path: string, detail?: string): void {
    this.list.push({ path, reason: detail === undefined ? 'Required value' : `Required value: ${detail}` });
  }
  invalid(path: string, value: unknown, detail: string): void {
    this.list.push({ path, reason: `Invalid value ${show(value)}: ${detail}` });
  }
  duplicate(path: string, value: unknown): void {
    this.list.push({ path, reason: `Duplicate value ${show(value)}` });
  }
  notSupported(path: string, value: unknown, supported: readonly string[]): void {
    this.list.push({ path, reason: `Unsupported value ${show(value)}: supported values: ${quoteList(supported)}` });
  }
  forbidden(path: string, detail: string): void {
    this.list.push({ path, reason: `Forbidden: ${detail}` });
  }
  notFound(path: string, value: unknown): void {
    this.list.push({ path, reason: `Not found: ${show(value)}` });
  }
  /** Records every reason a name rule returned, one issue per reason. */
  check(path: string, value: string, reasons: string[]): void {
    for (const r of reasons) this.invalid(path, value, r);
  }
  enumValue(path: string, value: string | undefined, supported: readonly string[]): void {
    if (value !== undefined && !supported.includes(value)) this.notSupported(path, value, supported);
  }
  nonNegative(path: string, value: number | undefined): void {
    if (value !== undefined && value < 0) this.invalid(path, value, 'must be greater than or equal to 0');
  }
}
