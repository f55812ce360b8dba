/**
 * What the fault scenarios (faults.test.ts, csi-faults.test.ts) share: the full-or-CI switch, the figures
 * report, and the pod checks that tell a lost or restarted container.
 */
import { appendFileSync } from 'node:fs';
import type { ApiPod, KubeletUnderTest } from './harness.js';

/** `KUBELET_TS_FAULTS=full` (npm run faults): the counts; otherwise CI's small ones. */
export const FULL = process.env['KUBELET_TS_FAULTS'] === 'full';

/** Prints a scenario's figures and appends them to the JSON-lines file named by KUBELET_TS_FAULTS_REPORT. */
export function report(scenario: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ scenario, full: FULL, ...figures });
  process.stdout.write(`faults: ${line}\n`);
  const file = process.env['KUBELET_TS_FAULTS_REPORT'];
  if (file !== undefined && file !== '') appendFileSync(file, `${line}\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The pod is Running with `expected` containers, every one running. */
export function allRunning(pod: ApiPod | undefined, expected: number): boolean {
  const statuses = pod?.status?.containerStatuses ?? [];
  return pod?.status?.phase === 'Running' && statuses.length === expected && statuses.every((s) => s.state?.running !== undefined);
}

/** Container IDs and restart counts from /pods, for the pods named. */
export async function restartSnapshot(kubelet: KubeletUnderTest, names: string[]): Promise<Map<string, string>> {
  const byName = new Map((await kubelet.pods()).map((p) => [p.metadata.name, p]));
  const out = new Map<string, string>();
  for (const name of names) {
    for (const s of byName.get(`${name}-${kubelet.nodeName}`)?.status?.containerStatuses ?? []) {
      out.set(`${name}/${s.name}`, `${s.containerID ?? '-'}#${s.restartCount}`);
    }
  }
  return out;
}

export function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before]
    .filter(([key, value]) => after.get(key) !== value)
    .map(([key, value]) => `${key}: ${value} → ${after.get(key) ?? 'gone'}`);
}
