// Name rules from apimachinery's util/validation, with messages in the same spirit.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const IANA_SVC_NAME = /^[-a-z0-9]+$/;
const HTTP_HEADER_NAME = /^[-A-Za-z0-9]+$/;

/** Each function returns the reasons the value is invalid (empty when valid). */
export function dns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) {
    errs.push("must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit");
  }
  return errs;
}

export function dns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push("must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit");
  }
  return errs;
}

/** A label or annotation key: an optional DNS subdomain prefix and "/", then a name of at most 63 characters. */
export function qualifiedName(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((e) => `prefix part ${e}`));
  } else {
    return ["a qualified name must consist of alphanumerics, '-', '_' or '.', with an optional DNS subdomain prefix and '/'"];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) {
    errs.push("name part must consist of alphanumerics, '-', '_' or '.', and must start and end with an alphanumeric");
  }
  return errs;
}

export function labelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) {
    errs.push("a label value must be empty or consist of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric");
  }
  return errs;
}

/** IANA_SVC_NAME (RFC 6335): at most 15 characters, [-a-z0-9], at least one letter, no leading/trailing/double '-'. */
export function portName(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 15) errs.push('must be no more than 15 characters');
  if (!IANA_SVC_NAME.test(value)) errs.push('must contain only alphanumeric characters (a-z, 0-9), and hyphens (-)');
  if (value.includes('--')) errs.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(value)) errs.push('must contain at least one letter (a-z)');
  if (value.startsWith('-') || value.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/**
 * Environment variable names as upstream validates them with RelaxedEnvironmentVariableValidation
 * (on by default): any printable ASCII character except '='.
 */
export function envVarName(value: string): string[] {
  if (value.length === 0) return ['must not be empty'];
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 32 || code > 126 || ch === '=') return ["must consist only of printable ASCII characters other than '='"];
  }
  return [];
}

export function httpHeaderName(value: string): string[] {
  return HTTP_HEADER_NAME.test(value) ? [] : ["a valid HTTP header must consist of alphanumeric characters or '-'"];
}
