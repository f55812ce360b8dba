// CRI calls as containerd counts them: its Prometheus endpoint (`[metrics] address` of the test
// runtime's config) exports grpc_server_handled_total per gRPC method. Counted at the runtime, so the
// same for any kubelet — the upstream kubelet's calls cannot be counted inside it as kubelet-ts's are
// (cri-call-counter.cjs). Every client of the containerd is counted: take windows in which the runner
// makes no CRI call of its own.
import { env } from './env.mjs';

const CRI_SERVICES = new Set(['runtime.v1.RuntimeService', 'runtime.v1.ImageService']);
const SAMPLE = /^grpc_server_handled_total\{([^}]*)\}\s+([0-9.eE+-]+)\s*$/;

/** Parses the exposition text: cumulative calls per `/service/method` (every status code summed). */
export function parseHandledTotals(text) {
  const counts = {};
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!CRI_SERVICES.has(labels.grpc_service)) continue;
    const key = `/${labels.grpc_service}/${labels.grpc_method}`;
    counts[key] = (counts[key] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** A snapshot in the shape of the kubelet's own counter: { time, counts }. */
export async function containerdCriCounts() {
  const address = env('KUBELET_TS_CONTAINERD_METRICS_ADDRESS');
  const response = await fetch(`http://${address}/v1/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`containerd metrics at ${address} answered ${response.status}`);
  return { time: Date.now(), counts: parseHandledTotals(await response.text()) };
}
