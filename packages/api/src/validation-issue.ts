/** One validation finding: the field path as upstream prints it and the reason. */
export interface ValidationIssue {
  /** e.g. "spec.containers[1].name" */
  path: string;
  /** e.g. `Invalid value "Foo": must be a DNS-1123 label …`, `Required value`, `Duplicate value "web"` */
  reason: string;
}
