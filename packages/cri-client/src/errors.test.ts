import { status } from '@grpc/grpc-js';
import { CriError, GrpcStatus, ignoreNotFound, isDeadlineExceeded, isNotFound, isUnavailable, isUnimplemented } from './errors.js';
import { toGrpcTarget } from './internal/endpoint.js';

function serviceError(code: number, details: string): Error & { code: number; details: string } {
  return Object.assign(new Error(`${code} ${details}`), { code, details });
}

describe('CriError.from', () => {
  it('maps every gRPC status number to its name and keeps the runtime message', () => {
    const err = CriError.from(serviceError(status.FAILED_PRECONDITION, 'container is in CONTAINER_EXITED state'), 'runtime.v1.RuntimeService/ExecSync');
    expect(err).toMatchObject({
      name: 'CriError',
      code: 'FAILED_PRECONDITION',
      grpcCode: 9,
      method: 'runtime.v1.RuntimeService/ExecSync',
      details: 'container is in CONTAINER_EXITED state',
      message: 'runtime.v1.RuntimeService/ExecSync: FAILED_PRECONDITION: container is in CONTAINER_EXITED state',
    });
    expect(err.cause).toBeInstanceOf(Error);
    for (const [name, code] of Object.entries(GrpcStatus)) expect(CriError.from(serviceError(code, 'x'), 'm').code).toBe(name);
  });

  it('names the endpoint, and says "not reachable" for UNAVAILABLE', () => {
    const unavailable = CriError.from(serviceError(status.UNAVAILABLE, 'connect ENOENT /x.sock'), 'm', 'unix:///x.sock');
    expect(unavailable.message).toBe('m: UNAVAILABLE: container runtime at unix:///x.sock is not reachable: connect ENOENT /x.sock');
    expect(CriError.from(serviceError(status.NOT_FOUND, 'gone'), 'm', 'unix:///x.sock').message).toBe('m (unix:///x.sock): NOT_FOUND: gone');
  });

  it('turns aborts into CANCELLED and anything else into UNKNOWN, and returns CriErrors unchanged', () => {
    const abort = Object.assign(new Error('stop'), { name: 'AbortError' });
    expect(CriError.from(abort, 'm')).toMatchObject({ code: 'CANCELLED', grpcCode: 1 });
    expect(CriError.from('boom', 'm')).toMatchObject({ code: 'UNKNOWN', grpcCode: 2, message: 'm: UNKNOWN: boom' });
    const original = new CriError('x', { code: 'NOT_FOUND', method: 'm' });
    expect(CriError.from(original, 'other')).toBe(original);
    expect(new CriError('v', { code: 'VERSION_MISMATCH', method: 'm' }).grpcCode).toBe(9);
  });
});

describe('guards', () => {
  it('recognize CriErrors and raw gRPC service errors', () => {
    expect(isNotFound(serviceError(status.NOT_FOUND, ''))).toBe(true);
    expect(isNotFound(new CriError('x', { code: 'NOT_FOUND', method: 'm' }))).toBe(true);
    expect(isUnimplemented(serviceError(status.UNIMPLEMENTED, ''))).toBe(true);
    expect(isUnavailable(new CriError('x', { code: 'UNAVAILABLE', method: 'm' }))).toBe(true);
    expect(isDeadlineExceeded(serviceError(status.DEADLINE_EXCEEDED, ''))).toBe(true);
    expect(isNotFound(new Error('not found'))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it('recognize a CriError from another copy of the module (the ./testing bundle, CJS next to ESM)', () => {
    class OtherCopyCriError extends Error {
      readonly code = 'NOT_FOUND';
      override readonly name = 'CriError';
    }
    expect(isNotFound(new OtherCopyCriError('container "x" not found'))).toBe(true);
    expect(isUnavailable(new OtherCopyCriError('x'))).toBe(false);
    const renamed = Object.assign(new Error('x'), { code: 'NOT_FOUND' });
    expect(isNotFound(renamed)).toBe(false);
  });

  it('ignoreNotFound resolves NOT_FOUND to undefined and rethrows the rest', async () => {
    await expect(ignoreNotFound(Promise.reject(serviceError(status.NOT_FOUND, '')))).resolves.toBeUndefined();
    await expect(ignoreNotFound(Promise.resolve(3))).resolves.toBe(3);
    await expect(ignoreNotFound(Promise.reject(serviceError(status.INTERNAL, 'bad')))).rejects.toMatchObject({ code: status.INTERNAL });
  });
});

describe('toGrpcTarget', () => {
  it.each([
    ['unix:///run/containerd/containerd.sock', 'unix:///run/containerd/containerd.sock'],
    ['/run/containerd/containerd.sock', 'unix:///run/containerd/containerd.sock'],
    ['unix://run/x.sock', 'unix:///run/x.sock'],
    ['unix:/run/x.sock', 'unix:///run/x.sock'],
    ['127.0.0.1:9000', '127.0.0.1:9000'],
  ])('%s → %s', (endpoint, target) => {
    expect(toGrpcTarget(endpoint)).toBe(target);
  });
});
