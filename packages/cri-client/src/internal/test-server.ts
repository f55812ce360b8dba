// A real gRPC server on a unix socket for the client's unit tests: each test plugs in the handlers it needs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { criPackageDefinition } from './loader.js';

type Handler = (call: { request: Record<string, unknown> }) => Promise<unknown> | unknown;
export type Handlers = Record<string, Handler>;

export interface TestServer {
  socket: string;
  endpoint: string;
  calls: { method: string; request: Record<string, unknown> }[];
  handlers: Handlers;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Errors a handler throws to answer with a gRPC status. */
export function grpcStatus(code: grpc.status, details: string): Error & { code: number; details: string } {
  return Object.assign(new Error(details), { code, details });
}

function serviceDefinition(name: 'RuntimeService' | 'ImageService'): grpc.ServiceDefinition {
  const loaded = grpc.loadPackageDefinition(criPackageDefinition()) as unknown as {
    runtime: { v1: Record<string, { service: grpc.ServiceDefinition }> };
  };
  const service = loaded.runtime.v1[name];
  if (service === undefined) throw new Error(`no ${name}`);
  // A handler that answers a Buffer sends those bytes as the response message as they are (the fuzz
  // tests' runtime answering garbage); anything else is encoded as the method's response type.
  return Object.fromEntries(
    Object.entries(service.service).map(([method, d]) => {
      const encode = d.responseSerialize;
      return [method, { ...d, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : encode(value)) }];
    }),
  ) as grpc.ServiceDefinition;
}

export function createTestServer(handlers: Handlers = {}, socketDir?: string): TestServer {
  const dir = socketDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cri-test-'));
  const socket = path.join(dir, 'cri.sock');
  const calls: TestServer['calls'] = [];
  let server: grpc.Server | undefined;

  const implementation = (definition: grpc.ServiceDefinition): grpc.UntypedServiceImplementation => {
    const impl: grpc.UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(definition)) {
      const key = name.charAt(0).toLowerCase() + name.slice(1);
      if (method.responseStream) {
        impl[name] = (call: grpc.ServerWritableStream<Record<string, unknown>, unknown>) => {
          calls.push({ method: key, request: call.request });
          const handler = result.handlers[key];
          if (handler === undefined) {
            call.emit('error', grpcStatus(grpc.status.UNIMPLEMENTED, `${name} not implemented`));
            return;
          }
          Promise.resolve(handler({ request: call.request })).then(
            (items) => {
              for (const item of items as unknown[]) call.write(item);
              call.end();
            },
            (err: unknown) => call.emit('error', err),
          );
        };
      } else {
        impl[name] = (call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          calls.push({ method: key, request: call.request });
          const handler =
            result.handlers[key] ??
            (key === 'version'
              ? () => ({ runtimeApiVersion: 'v1', runtimeName: 'test', runtimeVersion: '1.0.0', version: '0.1.0' })
              : undefined);
          if (handler === undefined) {
            callback(grpcStatus(grpc.status.UNIMPLEMENTED, `${name} not implemented`));
            return;
          }
          Promise.resolve()
            .then(() => handler({ request: call.request }))
            .then(
              (response) => callback(null, response),
              (err: unknown) => callback(err as grpc.ServiceError),
            );
        };
      }
    }
    return impl;
  };

  const result: TestServer = {
    socket,
    endpoint: `unix://${socket}`,
    calls,
    handlers,
    async start() {
      fs.rmSync(socket, { force: true });
      server = new grpc.Server();
      server.addService(serviceDefinition('RuntimeService'), implementation(serviceDefinition('RuntimeService')));
      server.addService(serviceDefinition('ImageService'), implementation(serviceDefinition('ImageService')));
      await new Promise<void>((resolve, reject) =>
        server?.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
      );
    },
    async stop() {
      const current = server;
      server = undefined;
      if (current === undefined) return;
      current.forceShutdown();
      fs.rmSync(socket, { force: true });
    },
  };
  return result;
}
