import { StatsError } from '../errors.js';
import type { FsStats, RuntimeStats } from '../types.js';
import { fsCapacity, iso, num } from './figures.js';
import { nanosToMs } from './parse.js';
import type { Collection, SummaryContext } from './summary-context.js';

/** The runtime's image and container filesystems (CRI ImageFsInfo), with their capacity from statfs. */
export async function imageFsStats(ctx: SummaryContext, c: Collection): Promise<RuntimeStats> {
  let response;
  try {
    response = await ctx.imageService.imageFsInfo({});
  } catch (err) {
    throw StatsError.from(err, 'RUNTIME', 'failed to get imageFs stats');
  }
  const toFs = async (usage: (typeof response.imageFilesystems)[number]): Promise<FsStats> => {
    const ms = nanosToMs(usage.timestamp) ?? ctx.clock.now();
    const used = num(usage.usedBytes);
    const inodesUsed = num(usage.inodesUsed);
    const mountpoint = usage.fsId?.mountpoint ?? '';
    const fs = mountpoint !== '' ? await c.fsInfo(mountpoint) : undefined;
    return {
      time: iso(ms),
      ...fsCapacity(fs),
      ...(used !== undefined ? { usedBytes: used } : {}),
      ...(inodesUsed !== undefined ? { inodesUsed } : {}),
    };
  };
  const image = response.imageFilesystems[0];
  if (image === undefined) throw new StatsError('RUNTIME', 'failed to get imageFs stats: imageFs information is unavailable');
  const imageFs = await toFs(image);
  const container = response.containerFilesystems[0];
  // Upstream's CRI stats provider reports the image filesystem as the container filesystem too
  // unless the runtime names a separate one.
  return { imageFs, containerFs: container !== undefined ? await toFs(container) : { ...imageFs } };
}
