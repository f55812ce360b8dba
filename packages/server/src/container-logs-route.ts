// Upstream server.go getContainerLogs: GET /containerLogs/{podNamespace}/{podID}/{containerName}.
import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { Router } from './router.js';
import { pathSegments, sendText } from './router.js';

/** What the route needs of the kubelet; the log options are the logs package's business. */
export interface ContainerLogsSource {
  /** The pod the kubelet has under this namespace and name (upstream GetPodByName), or undefined. */
  getPodByName(namespace: string, name: string): Pod | undefined;
  /**
   * Validates the query and starts the log. Rejects before any byte is written: with `status` 400
   * (a query that does not decode) or 422 (options that do not validate), anything else is a 400
   * with the error's message, as upstream's GetKubeletContainerLogs errors are. Then yields the bytes.
   */
  streamLogs(request: {
    pod: Pod;
    container: string;
    query: URLSearchParams;
    signal: AbortSignal;
  }): Promise<AsyncIterable<{ data: Uint8Array }>>;
}

function containerNames(pod: Pod): string[] {
  const ephemeral = ((pod.spec as Record<string, unknown>)['ephemeralContainers'] as Array<{ name?: unknown }> | undefined) ?? [];
  return [
    ...pod.spec.containers.map((c) => c.name),
    ...(pod.spec.initContainers ?? []).map((c) => c.name),
    ...ephemeral.map((c) => (typeof c.name === 'string' ? c.name : '')),
  ];
}

/** Go's http.Error text (restful's WriteError writes the error's text; the newline keeps curl output tidy). */
const fail = (res: Parameters<typeof sendText>[0], status: number, message: string): void => sendText(res, status, `${message}\n`);

/**
 * Installs `/containerLogs/*`: 400 for a missing part, 404 for a pod or container the kubelet does
 * not have, 400/422 for bad options, then the log as `text/plain`, chunked, flushed as it comes
 * (`follow` streams until the client goes or the container's log ends).
 */
export function installContainerLogs(router: Pick<Router, 'get'>, source: ContainerLogsSource): void {
  router.get('/containerLogs/*', async (req, res, { url, rest, logger }) => {
    const segments = pathSegments(rest);
    if (segments === undefined) return fail(res, 400, 'invalid URL escape in the path');
    const [namespace = '', podName = '', container = '', ...extra] = segments;
    if (extra.length > 0) return fail(res, 404, '404 page not found');
    if (podName === '') return fail(res, 400, '{"message": "Missing podID."}');
    if (container === '') return fail(res, 400, '{"message": "Missing container name."}');
    if (namespace === '') return fail(res, 400, '{"message": "Missing podNamespace."}');
    const query = new URLSearchParams(url.searchParams);
    // Upstream's backwards compatibility: `tail` means tailLines, `tail=all` none.
    const tail = query.get('tail');
    if (tail !== null && tail !== '') {
      query.delete('tail');
      if (tail !== 'all') query.set('tailLines', tail);
    }
    const pod = source.getPodByName(namespace, podName);
    if (pod === undefined) return fail(res, 404, `pod ${JSON.stringify(podName)} does not exist`);
    if (!containerNames(pod).includes(container)) {
      return fail(res, 404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}`);
    }
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    let chunks: AsyncIterable<{ data: Uint8Array }>;
    try {
      chunks = await source.streamLogs({ pod, container, query, signal: controller.signal });
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      return fail(res, status === 422 ? 422 : 400, errorMessage(err));
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked', 'X-Content-Type-Options': 'nosniff' });
    try {
      for await (const chunk of chunks) {
        if (!res.write(chunk.data)) await new Promise((resolve) => res.once('drain', resolve));
        if (controller.signal.aborted) break;
      }
    } catch (err) {
      // The status is out: all that is left is to end the body (upstream logs and returns too).
      if (!controller.signal.aborted)
        logger.warn('Container log stream failed', { pod: `${namespace}/${podName}`, container, err: errorMessage(err) });
    }
    res.end();
  });
}
