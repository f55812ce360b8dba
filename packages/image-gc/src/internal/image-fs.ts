import { ImageGCError } from '../errors.js';
import type { FsCapacity } from '../types.js';
import type { ImageGCContext } from './context.js';

/** The image filesystem's capacity: its mountpoint from CRI ImageFsInfo, then statfs of it (IMAGE_FS errors). */
export async function imageFsCapacity(ctx: ImageGCContext): Promise<FsCapacity & { mountpoint: string }> {
  let mountpoint: string | undefined;
  try {
    const info = await ctx.imageService.imageFsInfo({});
    mountpoint = info.imageFilesystems.find((fs) => (fs.fsId?.mountpoint ?? '') !== '')?.fsId?.mountpoint;
  } catch (err) {
    throw ImageGCError.from(err, 'IMAGE_FS', 'Failed to get the image filesystem from CRI ImageFsInfo');
  }
  if (mountpoint === undefined) throw new ImageGCError('IMAGE_FS', 'CRI ImageFsInfo reported no image filesystem mountpoint');
  try {
    return { ...(await ctx.statfs(mountpoint)), mountpoint };
  } catch (err) {
    throw ImageGCError.from(err, 'IMAGE_FS', `Failed to statfs the image filesystem at ${mountpoint}`);
  }
}
