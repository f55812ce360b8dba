import { lstat, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, Pod, VolumeMount } from '@kubelet-ts/api';
import type { ContainerMount } from '@kubelet-ts/container-runtime';
import { VolumeError } from '../errors.js';
import { isMountPoint } from '../mounter.js';
import { subPathMountDir } from '../paths.js';
import { openSubPath } from '../subpath.js';
import type { VolumeContext, VolumeState } from './context.js';

const PROPAGATION: Record<string, ContainerMount['propagation']> = {
  None: 'private',
  HostToContainer: 'host-to-container',
  Bidirectional: 'bidirectional',
};

/** `$(VAR)` expansion of subPathExpr from the container's literal env values (upstream expand.Expand semantics: unknown stays). */
function expandSubPathExpr(expr: string, container: Container): string {
  const env = new Map<string, string>();
  for (const e of container.env ?? []) if (e.value !== undefined) env.set(e.name, e.value);
  return expr.replace(/\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string) => env.get(name) ?? whole);
}

/** Where one subPath is bind-mounted: the container's `index`-th volumeMount of `volumeName`. */
interface SubPathMount {
  uid: string;
  volumeName: string;
  containerName: string;
  index: number;
  volumePath: string;
  subPath: string;
  readOnly: boolean;
}

/** Upstream doSafeMakeDir + doBindSubPath: open the subPath safely and bind-mount its fd to a kubelet-owned path. */
async function bindSubPath(ctx: VolumeContext, m: SubPathMount): Promise<string> {
  const { mounter } = ctx;
  const target = subPathMountDir(ctx.rootDir, m.uid, m.volumeName, m.containerName, m.index);
  if (isMountPoint(await mounter.list(), target)) return target;
  const opened = await openSubPath(m.volumePath, m.subPath);
  try {
    await mkdir(join(target, '..'), { recursive: true, mode: 0o750 });
    const existing = await lstat(target).catch(() => undefined);
    if (existing === undefined) {
      if (opened.isDirectory) await mkdir(target, { mode: 0o750 });
      else await writeFile(target, '', { mode: 0o640 });
    }
    await mounter.mount(opened.fdPath, target, '', m.readOnly ? ['bind', 'ro'] : ['bind']);
  } finally {
    await opened.handle.close();
  }
  return target;
}

function subPathOf(vm: VolumeMount, container: Container): string {
  return vm.subPathExpr !== undefined && vm.subPathExpr !== '' ? expandSubPathExpr(vm.subPathExpr, container) : (vm.subPath ?? '');
}

/** Upstream makeMounts: the host paths to mount into one container, subPaths bind-mounted safely. */
export async function getMountsForContainer(
  ctx: VolumeContext,
  state: VolumeState,
  pod: Pod,
  container: Container,
): Promise<ContainerMount[]> {
  const uid = pod.metadata.uid;
  const mounts: ContainerMount[] = [];
  for (const [index, vm] of (container.volumeMounts ?? []).entries()) {
    const volume = pod.spec.volumes?.find((v) => v.name === vm.name);
    if (volume === undefined)
      throw new VolumeError(
        'INVALID_VOLUME',
        `cannot find volume ${JSON.stringify(vm.name)} to mount into container ${JSON.stringify(container.name)}`,
      );
    const plugin = ctx.plugins.pluginFor(volume);
    let hostPath = plugin.path(pod, volume);
    const readOnly = vm.readOnly === true || plugin.readOnly(volume);
    const subPath = subPathOf(vm, container);
    if (subPath !== '') {
      const request: SubPathMount = {
        uid,
        volumeName: vm.name,
        containerName: container.name,
        index,
        volumePath: hostPath,
        subPath,
        readOnly,
      };
      hostPath = await state.withPodLock(uid, () => bindSubPath(ctx, request));
    }
    const propagation = vm.mountPropagation !== undefined ? PROPAGATION[vm.mountPropagation] : undefined;
    mounts.push({ containerPath: vm.mountPath, hostPath, readOnly, ...(propagation !== undefined ? { propagation } : {}) });
  }
  return mounts;
}
