// A Node object for the tests that need one, over any client with get/create/delete by path
// (structurally @kubelet-ts/kube-client's KubeClient: test-support depends on no other package).

/** The calls ensureNode makes; failures carry the API's `reason` (kube-client's errors do). */
export interface NodeSetupClient {
  get(path: string): Promise<unknown>;
  create(path: string, body: unknown): Promise<unknown>;
  delete(path: string, options?: { body?: unknown }): Promise<unknown>;
}

const CREATED_BY = 'kubelet-ts.test/created-by';

/**
 * A Node `name` for the test (the pod GC controller force-deletes pods bound to a node that does
 * not exist, after 40 s). Made only when missing, labelled with `owner`; `release` deletes it only
 * when this test made it.
 */
export async function ensureNode(admin: NodeSetupClient, name: string, owner: string): Promise<{ release(): Promise<void> }> {
  const path = `/api/v1/nodes/${name}`;
  try {
    await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [CREATED_BY]: owner } } });
  } catch (err) {
    // @kubelet-ts/api's isAlreadyExists, structurally (test-support sits below api).
    if ((err as { reason?: unknown } | undefined)?.reason === 'AlreadyExists') return { release: async () => undefined };
    throw err;
  }
  return {
    async release() {
      const node = (await admin.get(path).catch(() => undefined)) as
        { metadata: { labels?: Record<string, string>; uid: string } } | undefined;
      if (node?.metadata.labels?.[CREATED_BY] !== owner) return;
      await admin.delete(path, { body: { preconditions: { uid: node.metadata.uid } } }).catch(() => undefined);
    },
  };
}
