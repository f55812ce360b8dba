import { errorMessage } from '@kubelet-ts/common';
import { containerdConfigFromInfo } from '@kubelet-ts/cri-client';
import type { Image } from '@kubelet-ts/cri-client';
import type { ImageGCContext, ImageGCState } from './context.js';

/** The references never removed: the pinned ones and the sandbox image (given, or read from the runtime's Status). */
async function protectedRefs(ctx: ImageGCContext, state: ImageGCState): Promise<string[]> {
  const refs = [...ctx.pinnedImages];
  if (ctx.sandboxImage !== undefined) {
    refs.push(ctx.sandboxImage);
  } else {
    try {
      const status = await ctx.runtimeService.status({ verbose: true });
      state.runtimeSandboxImage = containerdConfigFromInfo(status.info)?.sandboxImage ?? state.runtimeSandboxImage;
    } catch (err) {
      ctx.logger.debug('CRI Status failed; keeping the last known sandbox image', {
        err: errorMessage(err),
        sandboxImage: state.runtimeSandboxImage,
      });
    }
    if (state.runtimeSandboxImage !== undefined) refs.push(state.runtimeSandboxImage);
  }
  return refs;
}

/** Image IDs of the protected references (a reference may have been re-pulled under a new ID). */
export async function protectedImageIds(ctx: ImageGCContext, state: ImageGCState, images: readonly Image[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const ref of await protectedRefs(ctx, state)) {
    const local = images.find((i) => i.id === ref || i.repoTags.includes(ref) || i.repoDigests.includes(ref));
    if (local !== undefined) {
      ids.add(local.id);
      continue;
    }
    try {
      const status = await ctx.imageService.imageStatus({ image: { image: ref } });
      if (status.image !== null && status.image.id !== '') ids.add(status.image.id);
    } catch (err) {
      ctx.logger.debug('Cannot resolve a protected image', { image: ref, err: errorMessage(err) });
    }
  }
  return ids;
}
