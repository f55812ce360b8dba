import { z } from 'zod';

// containerd's verbose CRI Status carries its CRI plugin config as JSON under info.config.
const containerdConfigSchema = z.looseObject({ sandboxImage: z.string().min(1).optional() });

/** The sandbox (pause) image named in containerd's verbose Status info, when it says. */
export function sandboxImageFromRuntimeInfo(info: Record<string, string> | null | undefined): string | undefined {
  const raw = info?.['config'];
  if (raw === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = containerdConfigSchema.safeParse(json);
  return parsed.success ? parsed.data.sandboxImage : undefined;
}
