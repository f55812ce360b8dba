/**
 * The EventedPLEG gate on the real runtime. Where the runtime streams CRI GetContainerEvents (containerd 2) a
 * container that exits is restarted on its event, seconds after the exit, while the generic PLEG relists only
 * every 300 s (its relist count and the ListPodSandbox calls prove that the 1 s relist is not running). Where
 * the runtime answers UNIMPLEMENTED (containerd 1.6) the PLEG falls back after 5 failed streams to the 1 s
 * relist, which restarts the container as fast. With the events ignored, the restart would wait for the next
 * 300 s relist and this fails.
 */
import { createCriClient, isUnimplemented } from '@kubelet-ts/cri-client';
import { busyboxPod, containerState, createKubelet, env, eventually, waitHealthy } from './harness.js';
import type { ApiPod, KubeletUnderTest } from './harness.js';

type PlegPath = 'events' | 'fallback';

/** What the runtime answers to GetContainerEvents: a stream that stays open (events), or UNIMPLEMENTED at once. */
async function runtimePath(endpoint: string): Promise<PlegPath> {
  const cri = createCriClient({ endpoint });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 3_000);
  try {
    for await (const _ of cri.runtime.getContainerEvents({}, { signal: controller.signal })) break;
    return 'events';
  } catch (err) {
    if (isUnimplemented(err)) return 'fallback';
    throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
    cri.close();
  }
}

/** The kubelet's /metrics samples by name and labels, e.g. `kubelet_runtime_operations_total{operation_type="list_podsandbox"}`. */
async function scrape(kubelet: KubeletUnderTest): Promise<(series: string) => number> {
  const response = await fetch(`http://127.0.0.1:${kubelet.readOnlyPort}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return (series) => samples.get(series) ?? 0;
}

const RELISTS = 'kubelet_pleg_relist_duration_seconds_count';
const LIST_PODSANDBOX = 'kubelet_runtime_operations_total{operation_type="list_podsandbox"}';
const STREAM_ERRORS = 'kubelet_evented_pleg_connection_error_count';
const STREAMS = 'kubelet_evented_pleg_connection_success_count';

let kubelet: KubeletUnderTest;
let path: PlegPath;

beforeAll(async () => {
  path = await runtimePath(env('KUBELET_TS_CRI_ENDPOINT'));
  process.stdout.write(`evented PLEG: containerd ${process.env['KUBELET_TS_CONTAINERD'] ?? '?'} → ${path} path\n`);
  kubelet = await createKubelet('evented-pleg');
  await kubelet.start(['--feature-gates=EventedPLEG=true']);
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet?.cleanup();
});

test('with EventedPLEG a container that exits is restarted within seconds; the 1 s relist runs only on a runtime without events', async () => {
  // Exits 3 s after each start; the first restart has no back-off.
  await kubelet.writeManifest('crasher.json', busyboxPod('crasher', [{ name: 'c', command: ['sh', '-c', 'sleep 3; exit 3'] }]));
  const first = await eventually(
    'crasher running',
    async () => {
      const c = containerState(await kubelet.pod('crasher'), 'c');
      return c?.state?.running !== undefined && c.restartCount === 0 ? c : undefined;
    },
    60_000,
  );
  const restarted: ApiPod = await eventually(
    'crasher restarted after its exit',
    async () => {
      const pod = await kubelet.pod('crasher');
      const c = containerState(pod, 'c');
      return c !== undefined && c.restartCount >= 1 && c.containerID !== first.containerID ? pod : undefined;
    },
    // An exit seen only by the 300 s relist misses this by far.
    20_000,
  );
  const c = containerState(restarted, 'c');
  const exitedAt = Date.parse(c?.lastState?.terminated?.finishedAt ?? '');
  const startedAt = Date.parse(c?.state?.running?.startedAt ?? c?.state?.terminated?.startedAt ?? '');
  expect(c?.lastState?.terminated?.exitCode).toBe(3);
  // RFC 3339 seconds: the new container started within a few seconds of the old one's exit.
  expect(startedAt - exitedAt).toBeLessThan(10_000);
  process.stdout.write(`evented PLEG (${path}): restarted ${startedAt - exitedAt} ms after the exit (status seconds)\n`);

  // 10 s of steady state: how often the generic PLEG relisted, and how often the runtime was asked ListPodSandbox.
  const before = await scrape(kubelet);
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const after = await scrape(kubelet);
  const relists = after(RELISTS) - before(RELISTS);
  const listCalls = after(LIST_PODSANDBOX) - before(LIST_PODSANDBOX);
  process.stdout.write(
    `evented PLEG (${path}): in 10 s ${relists} relists, ${listCalls} ListPodSandbox; streams ${after(STREAMS)}, stream errors ${after(STREAM_ERRORS)}\n`,
  );
  if (path === 'events') {
    expect(after(STREAM_ERRORS)).toBe(0);
    expect(after(STREAMS)).toBe(1);
    expect(relists).toBeLessThanOrEqual(1);
    expect(listCalls).toBeLessThan(10);
  } else {
    // Upstream's fall-back: 5 failed streams (each one "obtained" first, as grpc opens a stream lazily), then the 1 s relist.
    expect(after(STREAM_ERRORS)).toBe(5);
    expect(relists).toBeGreaterThanOrEqual(8);
    expect(listCalls).toBeGreaterThanOrEqual(8);
  }
});
