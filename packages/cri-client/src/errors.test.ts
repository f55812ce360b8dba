import { status } from '@grpc/grpc-js';
import { CriError, GrpcStatus, ignoreNotFound, isDeadlineExceeded, isNotFound, isUnavailable, isUnimplemented } from './errors.js';
import type * as ErrorsModule from './errors.js';
import { toGrpcTarget } from './internal/endpoint.js';

function serviceError(code: number, details: string): Error & { code: number; details: string } {
  return Object.assign(new Error(`${code} ${details}`), { code, details });
}

describe('CriError.fromRpc', () => {
  it('maps every gRPC status number to its name and keeps the runtime message', () => {
    const err = CriError.fromRpc(
      serviceError(status.FAILED_PRECONDITION, 'container is in CONTAINER_EXITED state'),
      'runtime.v1.RuntimeService/ExecSync',
    );
    expect(err).toMatchObject({
      name: 'CriError',
      code: 'FAILED_PRECONDITION',
      grpcCode: 9,
      method: 'runtime.v1.RuntimeService/ExecSync',
      details: 'container is in CONTAINER_EXITED state',
      message: 'runtime.v1.RuntimeService/ExecSync: FAILED_PRECONDITION: container is in CONTAINER_EXITED state',
    });
    expect(err.cause).toBeInstanceOf(Error);
    for (const [name, code] of Object.entries(GrpcStatus)) expect(CriError.fromRpc(serviceError(code, 'x'), 'm').code).toBe(name);
  });

  it('names the endpoint, and says "not reachable" for UNAVAILABLE', () => {
    const unavailable = CriError.fromRpc(serviceError(status.UNAVAILABLE, 'connect ENOENT /x.sock'), 'm', 'unix:///x.sock');
    expect(unavailable.message).toBe('m: UNAVAILABLE: container runtime at unix:///x.sock is not reachable: connect ENOENT /x.sock');
    expect(CriError.fromRpc(serviceError(status.NOT_FOUND, 'gone'), 'm', 'unix:///x.sock').message).toBe(
      'm (unix:///x.sock): NOT_FOUND: gone',
    );
  });

  it('turns aborts into CANCELLED and anything else into UNKNOWN, and returns CriErrors unchanged', () => {
    const abort = Object.assign(new Error('stop'), { name: 'AbortError' });
    expect(CriError.fromRpc(abort, 'm')).toMatchObject({ code: 'CANCELLED', grpcCode: 1 });
    expect(CriError.fromRpc('boom', 'm')).toMatchObject({ code: 'UNKNOWN', grpcCode: 2, message: 'm: UNKNOWN: boom' });
    const original = new CriError('NOT_FOUND', 'x', { method: 'm' });
    expect(CriError.fromRpc(original, 'other')).toBe(original);
    expect(new CriError('VERSION_MISMATCH', 'v', { method: 'm' }).grpcCode).toBe(9);
  });
});

describe('CriError.from', () => {
  it('wraps anything with a code (UNKNOWN by default) and no method, keeping CriErrors', () => {
    const cause = new Error('socket closed');
    expect(CriError.from(cause)).toMatchObject({ code: 'UNKNOWN', grpcCode: 2, method: '', details: '', message: 'socket closed', cause });
    expect(CriError.from(cause, 'UNAVAILABLE', 'runtime gone')).toMatchObject({
      code: 'UNAVAILABLE',
      grpcCode: 14,
      message: 'runtime gone',
    });
    const original = new CriError('NOT_FOUND', 'x', { method: 'm' });
    expect(CriError.from(original, 'INTERNAL')).toBe(original);
    expect(CriError.is(original, 'NOT_FOUND')).toBe(true);
  });
});

describe('guards', () => {
  it('recognize CriErrors and raw gRPC service errors', () => {
    expect(isNotFound(serviceError(status.NOT_FOUND, ''))).toBe(true);
    expect(isNotFound(new CriError('NOT_FOUND', 'x', { method: 'm' }))).toBe(true);
    expect(isUnimplemented(serviceError(status.UNIMPLEMENTED, ''))).toBe(true);
    expect(isUnavailable(new CriError('UNAVAILABLE', 'x', { method: 'm' }))).toBe(true);
    expect(isDeadlineExceeded(serviceError(status.DEADLINE_EXCEEDED, ''))).toBe(true);
    expect(isNotFound(new Error('not found'))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it('recognize a CriError from another copy of the module (the ./testing bundle, CJS next to ESM)', () => {
    let copy: typeof ErrorsModule | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      copy = require('./errors.js') as typeof ErrorsModule;
    });
    if (copy === undefined) throw new Error('the module did not load');
    expect(copy.CriError).not.toBe(CriError);
    const fromCopy = new copy.CriError('NOT_FOUND', 'container "x" not found', { method: 'm' });
    expect(isNotFound(fromCopy)).toBe(true);
    expect(isUnavailable(fromCopy)).toBe(false);
    expect(fromCopy instanceof CriError).toBe(true);
    expect(CriError.fromRpc(fromCopy, 'other')).toBe(fromCopy);
    // Another error that merely looks like one is not a CriError.
    const lookalike = Object.assign(new Error('x'), { name: 'CriError', code: 'NOT_FOUND' });
    expect(isNotFound(lookalike)).toBe(false);
    expect(lookalike instanceof CriError).toBe(false);
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
