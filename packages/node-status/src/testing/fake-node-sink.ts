import type { Node } from '@kubelet-ts/api';
import type { NodeSink } from '../types.js';

/** A NodeSink for tests: keeps every node it was given, in order; `error` makes the next update reject. */
export class FakeNodeSink implements NodeSink {
  readonly nodes: Node[] = [];
  error: Error | undefined;

  update(node: Node): Promise<void> {
    this.nodes.push(structuredClone(node));
    const err = this.error;
    this.error = undefined;
    return err === undefined ? Promise.resolve() : Promise.reject(err);
  }

  /** The node last sent. */
  get latest(): Node | undefined {
    return this.nodes.at(-1);
  }
}
