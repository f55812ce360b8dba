import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createCriClient } from './client.js';
import type { CriClient } from './client.js';
import { CriError, isDeadlineExceeded, isNotFound, isUnavailable } from './errors.js';
import { createTestServer, grpcStatus } from './internal/test-server.js';
import type { TestServer } from './internal/test-server.js';

describe('createCriClient against a gRPC server on a unix socket', () => {
  let server: TestServer;
  let client: CriClient;

  beforeEach(async () => {
    server = createTestServer();
    await server.start();
    client = createCriClient({ endpoint: server.endpoint, reconnectBackoff: { initialMs: 50, maxMs: 200 } });
  });

  afterEach(async () => {
    client.close();
    await server.stop();
  });

  it('sends requests in input form and returns responses in output form (int64 as strings, enums as names, defaults)', async () => {
    server.handlers.listContainers = ({ request }) => {
      expect(request).toMatchObject({ filter: { labelSelector: { app: 'web' }, state: { state: 'CONTAINER_RUNNING' } } });
      return {
        containers: [
          { id: 'c1', podSandboxId: 's1', state: 'CONTAINER_RUNNING', createdAt: '1700000000123456789', labels: { app: 'web' } },
        ],
      };
    };
    const response = await client.runtime.listContainers({
      filter: { labelSelector: { app: 'web' }, state: { state: 'CONTAINER_RUNNING' } },
    });
    expect(response.containers).toHaveLength(1);
    const [container] = response.containers;
    expect(container?.createdAt).toBe('1700000000123456789');
    expect(container?.state).toBe('CONTAINER_RUNNING');
    expect(container?.imageRef).toBe('');
    expect(container?.metadata).toBeNull();
    expect(container?.annotations).toEqual({});
  });

  it('returns ExecSync output as Buffers and passes env values as strings', async () => {
    server.handlers.execSync = () => ({ stdout: Buffer.from('hello\n'), stderr: Buffer.from('warn\n'), exitCode: 3 });
    server.handlers.createContainer = ({ request }) => {
      const config = request.config as { envs: { key: string; value: string }[] };
      return { containerId: `${config.envs[0]?.key}=${config.envs[0]?.value}` };
    };
    const exec = await client.runtime.execSync({ containerId: 'c1', cmd: ['sh', '-c', 'echo hello'], timeout: 5 });
    expect(Buffer.isBuffer(exec.stdout)).toBe(true);
    expect(exec.stdout.toString()).toBe('hello\n');
    expect(exec.stderr.toString()).toBe('warn\n');
    expect(exec.exitCode).toBe(3);
    const created = await client.runtime.createContainer({
      podSandboxId: 's1',
      config: { envs: [{ key: 'GREETING', value: 'hi there' }] },
    });
    expect(created.containerId).toBe('GREETING=hi there');
  });

  it('negotiates Version once (announcing 0.1.0) and caches it while the connection stays up', async () => {
    server.handlers.status = () => ({ status: { conditions: [{ type: 'RuntimeReady', status: true }] } });
    server.handlers.imageFsInfo = () => ({ imageFilesystems: [] });
    await client.runtime.status({});
    await client.runtime.status({});
    await client.image.imageFsInfo({});
    const versions = server.calls.filter((c) => c.method === 'version');
    expect(versions).toHaveLength(1);
    expect(versions[0]?.request).toMatchObject({ version: '0.1.0' });
    expect(server.calls.map((c) => c.method)).toEqual(['version', 'status', 'status', 'imageFsInfo']);
  });

  it('rejects every runtime call with VERSION_MISMATCH when the runtime is not CRI v1', async () => {
    server.handlers.version = () => ({ runtimeApiVersion: 'v1alpha2', runtimeName: 'old', runtimeVersion: '1.4' });
    server.handlers.status = () => ({});
    const err = await client.runtime.status({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CriError);
    expect((err as CriError).code).toBe('VERSION_MISMATCH');
    expect((err as CriError).message).toContain('"v1alpha2", expected "v1"');
    expect(server.calls.some((c) => c.method === 'status')).toBe(false);
  });

  it('maps gRPC statuses to CriError with code, grpcCode, method and the runtime message', async () => {
    server.handlers.containerStatus = () => {
      throw grpcStatus(status.NOT_FOUND, 'an error occurred when try to find container "nope": not found');
    };
    const err = (await client.runtime.containerStatus({ containerId: 'nope' }).catch((e: unknown) => e)) as CriError;
    expect(err).toBeInstanceOf(CriError);
    expect(err.code).toBe('NOT_FOUND');
    expect(err.grpcCode).toBe(5);
    expect(err.method).toBe('runtime.v1.RuntimeService/ContainerStatus');
    expect(err.details).toContain('not found');
    expect(isNotFound(err)).toBe(true);
  });

  it('treats NOT_FOUND as success on stop/remove only when asked to', async () => {
    server.handlers.removeContainer = () => {
      throw grpcStatus(status.NOT_FOUND, 'container "gone" not found');
    };
    await expect(client.runtime.removeContainer({ containerId: 'gone' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.runtime.removeContainer({ containerId: 'gone' }, { ignoreNotFound: true })).resolves.toEqual({});
    server.handlers.stopContainer = () => {
      throw grpcStatus(status.INTERNAL, 'boom');
    };
    await expect(client.runtime.stopContainer({ containerId: 'x' }, { ignoreNotFound: true })).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('fails with DEADLINE_EXCEEDED when the runtime answers after the deadline', async () => {
    server.handlers.listPodSandbox = () => new Promise((resolve) => setTimeout(() => resolve({ items: [] }), 500));
    await client.runtime.version({});
    const started = Date.now();
    const err = await client.runtime.listPodSandbox({}, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(isDeadlineExceeded(err)).toBe(true);
    expect(Date.now() - started).toBeLessThan(450);
  });

  it('cancels a call when its AbortSignal aborts', async () => {
    server.handlers.pullImage = () => new Promise((resolve) => setTimeout(() => resolve({ imageRef: 'sha256:x' }), 500));
    const controller = new AbortController();
    const pulling = client.image.pullImage({ image: { image: 'busybox' } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pulling).rejects.toMatchObject({ code: 'CANCELLED' });
    const already = new AbortController();
    already.abort();
    await expect(client.runtime.status({}, { signal: already.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('yields server-stream items and ends the stream on abort', async () => {
    server.handlers.streamContainers = () => [{ containers: [{ id: 'a' }] }, { containers: [{ id: 'b' }] }];
    const ids: string[] = [];
    for await (const batch of client.runtime.streamContainers({})) ids.push(...batch.containers.map((c) => c.id));
    expect(ids).toEqual(['a', 'b']);

    server.handlers.getContainerEvents = () => new Promise(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const events: unknown[] = [];
    for await (const event of client.runtime.getContainerEvents({}, { signal: controller.signal })) events.push(event);
    expect(events).toEqual([]);
  });

  it('reports UNIMPLEMENTED streams as CriError', async () => {
    const consume = async (): Promise<void> => {
      for await (const _ of client.runtime.getContainerEvents({})) void _;
    };
    await expect(consume()).rejects.toMatchObject({ code: 'UNIMPLEMENTED', method: 'runtime.v1.RuntimeService/GetContainerEvents' });
  });

  it('recovers by itself after the runtime restarts, re-checking the version', async () => {
    server.handlers.status = () => ({});
    await client.runtime.status({});
    await server.stop();
    const down = await client.runtime.status({}).catch((e: unknown) => e);
    expect(isUnavailable(down)).toBe(true);
    expect((down as Error).message).toContain(server.endpoint);
    await server.start();
    const deadline = Date.now() + 5_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      recovered = await client.runtime.status({}).then(
        () => true,
        () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50)),
      );
    }
    expect(recovered).toBe(true);
    expect(server.calls.filter((c) => c.method === 'version').length).toBeGreaterThanOrEqual(2);
  });
});

describe('createCriClient without a runtime', () => {
  it('constructs lazily and fails calls with UNAVAILABLE naming the endpoint, within the deadline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cri-missing-'));
    const socket = path.join(dir, 'missing.sock');
    const logger = new RecordingLogger();
    const client = createCriClient({ endpoint: socket, logger });
    expect(client.endpoint).toBe(`unix://${socket}`);
    const started = Date.now();
    const err = await client.runtime.listContainers({}, { timeoutMs: 3_000 }).catch((e: unknown) => e);
    client.close();
    expect(err).toBeInstanceOf(CriError);
    expect((err as CriError).code).toBe('UNAVAILABLE');
    expect((err as CriError).method).toBe('runtime.v1.RuntimeService/ListContainers');
    expect((err as CriError).message).toContain(`unix://${socket}`);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(logger.find('CRI call failed').length).toBeGreaterThan(0);
  });

  it('rejects invalid options with INVALID_ARGUMENT', () => {
    expect(() => createCriClient({ endpoint: '' })).toThrow(/endpoint must be a non-empty string/);
    expect(() => createCriClient({ endpoint: '/x.sock', timeouts: { readMs: -1 } })).toThrow(/timeouts.readMs/);
    expect(() => createCriClient({ endpoint: '/x.sock', maxMessageBytes: 0 })).toThrow(/maxMessageBytes/);
  });
});

describe('createCriClient lifecycle', () => {
  it('rejects calls after close() with CANCELLED instead of throwing', async () => {
    const server = createTestServer({ status: () => ({}) });
    await server.start();
    const client = createCriClient({ endpoint: server.endpoint });
    await client.runtime.status({});
    client.close();
    await expect(client.runtime.status({})).rejects.toMatchObject({ code: 'CANCELLED', message: expect.stringContaining('closed') });
    await expect(client.image.listImages({})).rejects.toMatchObject({ code: 'CANCELLED' });
    await server.stop();
  });

  it('does not fail a concurrent caller when another caller aborts during the version check', async () => {
    const server = createTestServer({
      version: () => new Promise((resolve) => setTimeout(() => resolve({ runtimeApiVersion: 'v1' }), 100)),
      status: () => ({}),
    });
    await server.start();
    const client = createCriClient({ endpoint: server.endpoint });
    const controller = new AbortController();
    const aborted = client.runtime.status({}, { signal: controller.signal });
    const other = client.runtime.status({});
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(other).resolves.toHaveProperty('info');
    expect(server.calls.filter((c) => c.method === 'version')).toHaveLength(1);
    client.close();
    await server.stop();
  });
});
