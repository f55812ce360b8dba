// The boundary: Nodes and Leases from the API server or the informer are checked before use.
import { formatPath, LeaseSchema, NodeSchema, stripNulls } from '@kubelet-ts/api';
import type { Lease, Node } from '@kubelet-ts/api';
import { NodeStatusError } from '../errors.js';

/** The part of a zod schema used here (this package does not depend on zod itself). */
interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

function parse<T>(schema: Schema<T>, value: unknown, source: string, kind: string): T {
  // Go decodes null as absent; so do we, before the type check.
  const result = schema.safeParse(stripNulls(value));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : `${formatPath(issue.path)}: `;
  throw new NodeStatusError('INVALID_OBJECT', `${source}: not a valid ${kind}: ${where}${issue?.message ?? 'invalid'}`);
}

/** `source` names where the object came from, e.g. `GET nodes/node-a`. */
export const parseNode = (value: unknown, source: string): Node => parse(NodeSchema, value, source, 'Node');
export const parseLease = (value: unknown, source: string): Lease => parse(LeaseSchema, value, source, 'Lease');
