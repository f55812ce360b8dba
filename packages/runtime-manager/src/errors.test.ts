import { Reason } from '@kubelet-ts/api';
import { RuntimeManagerError, codeForReason } from './errors.js';
import type { RuntimeManagerErrorCode } from './errors.js';

describe('RuntimeManagerError', () => {
  it('carries the upstream reason of its code, separate from the code', () => {
    const err = new RuntimeManagerError('CRASH_LOOP_BACK_OFF', 'back-off 10s restarting failed container');
    expect(err).toMatchObject({ name: 'RuntimeManagerError', code: 'CRASH_LOOP_BACK_OFF', reason: Reason.CrashLoopBackOff });
    expect(RuntimeManagerError.from(new Error('socket closed'))).toMatchObject({
      code: 'RUNTIME_ERROR',
      reason: 'RuntimeError',
      message: 'socket closed',
    });
  });

  it('maps every upstream reason a sync result can carry to a code and back', () => {
    const reasons = [
      Reason.ErrImagePull,
      Reason.ImagePullBackOff,
      Reason.ErrImageNeverPull,
      Reason.InvalidImageName,
      Reason.ImageInspectError,
      Reason.CrashLoopBackOff,
      Reason.CreateContainerConfigError,
      Reason.CreateContainerError,
      Reason.RunContainerError,
      Reason.PostStartHookError,
      'PreStopHookError',
      Reason.KillContainerError,
      Reason.CreatePodSandboxError,
      Reason.ConfigPodSandboxError,
      Reason.KillPodSandboxError,
    ];
    const codes = new Set<RuntimeManagerErrorCode>();
    for (const reason of reasons) {
      const code = codeForReason(reason);
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(code).not.toBe('RUNTIME_ERROR');
      expect(new RuntimeManagerError(code, 'x').reason).toBe(reason);
      codes.add(code);
    }
    expect(codes.size).toBe(reasons.length);
    expect(codeForReason('SomethingElse')).toBe('RUNTIME_ERROR');
  });
});
