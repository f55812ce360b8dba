// containerd's verbose CRI Status (Status with verbose: true) carries its CRI plugin configuration
// as JSON under info["config"]. The one reader of it: the cgroup driver check and image GC's
// pinned sandbox image use what it says.
import { z } from 'zod';

/** The part of containerd's CRI plugin configuration kubelet-ts reads. */
export interface ContainerdCriConfig {
  /** The sandbox (pause) image; undefined when absent or empty. */
  sandboxImage?: string;
  /** The legacy top-level SystemdCgroup switch (containerd before per-runtime options). */
  systemdCgroup?: boolean;
  containerd?: {
    /** The runtime used when a pod names no runtime handler (`runc` when absent). */
    defaultRuntimeName?: string;
    /** Runtimes by handler name, with their options (runc's `SystemdCgroup`, …). */
    runtimes?: Record<string, { options?: Record<string, unknown> | null }>;
  };
}

// Each field is read on its own: one field of an unexpected shape does not hide the others.
const schema = z.looseObject({
  sandboxImage: z.string().min(1).optional().catch(undefined),
  systemdCgroup: z.boolean().optional().catch(undefined),
  containerd: z
    .looseObject({
      defaultRuntimeName: z.string().optional(),
      runtimes: z.record(z.string(), z.looseObject({ options: z.record(z.string(), z.unknown()).nullish() })).optional(),
    })
    .optional()
    .catch(undefined),
});

/**
 * containerd's CRI configuration from a verbose Status `info`; undefined when there is none
 * (another runtime, a non-verbose Status) or it is not a JSON object.
 */
export function containerdConfigFromInfo(info: Readonly<Record<string, string>> | null | undefined): ContainerdCriConfig | undefined {
  const raw = info?.['config'];
  if (raw === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return undefined;
  const { sandboxImage, systemdCgroup, containerd } = parsed.data;
  return {
    ...(sandboxImage !== undefined ? { sandboxImage } : {}),
    ...(systemdCgroup !== undefined ? { systemdCgroup } : {}),
    ...(containerd !== undefined ? { containerd } : {}),
  };
}
