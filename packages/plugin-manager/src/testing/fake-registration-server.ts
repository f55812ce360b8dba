import { rm } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import { registrationService } from '../internal/registration-loader.js';

export interface FakeRegistrationServerOptions {
  /** The registration socket, normally `<root-dir>/plugins_registry/<name>-reg.sock`. */
  socketPath: string;
  /** PluginInfo.type; `CSIPlugin` by default. */
  type?: string;
  name: string;
  /** The plugin's service socket (CSI: the driver's socket); empty means this socket. */
  endpoint?: string;
  /** Default `['1.0.0']`. */
  supportedVersions?: string[];
}

/** One RegistrationStatus the kubelet sent. */
export interface ReceivedRegistrationStatus {
  pluginRegistered: boolean;
  error: string;
}

export interface FakeRegistrationServer {
  /** `unix://<socketPath>`. */
  endpoint: string;
  /** GetInfo calls received. */
  getInfoCalls: number;
  /** Every NotifyRegistrationStatus received, in order. */
  statuses: ReceivedRegistrationStatus[];
  start(): Promise<void>;
  /** Stops serving and removes the socket (which deregisters the plugin). */
  stop(): Promise<void>;
}

/**
 * A plugin registration socket for tests (what node-driver-registrar serves for a CSI driver):
 * answers GetInfo with the configured PluginInfo and records the kubelet's registration statuses.
 */
export function createFakeRegistrationServer(options: FakeRegistrationServerOptions): FakeRegistrationServer {
  let server: grpc.Server | undefined;
  const self: FakeRegistrationServer = {
    endpoint: `unix://${options.socketPath}`,
    getInfoCalls: 0,
    statuses: [],
    start() {
      const s = new grpc.Server();
      s.addService(registrationService() as unknown as grpc.ServiceDefinition, {
        GetInfo: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          self.getInfoCalls += 1;
          callback(null, {
            type: options.type ?? 'CSIPlugin',
            name: options.name,
            endpoint: options.endpoint ?? '',
            supportedVersions: options.supportedVersions ?? ['1.0.0'],
          });
        },
        NotifyRegistrationStatus: (
          call: grpc.ServerUnaryCall<ReceivedRegistrationStatus, unknown>,
          callback: grpc.sendUnaryData<unknown>,
        ) => {
          self.statuses.push({ pluginRegistered: call.request.pluginRegistered, error: call.request.error });
          callback(null, {});
        },
      });
      server = s;
      return new Promise((resolve, reject) => {
        s.bindAsync(self.endpoint, grpc.ServerCredentials.createInsecure(), (err) => (err === null ? resolve() : reject(err)));
      });
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s !== undefined) await new Promise<void>((resolve) => s.tryShutdown(() => resolve()));
      // grpc-js unlinks the socket on shutdown; make sure it is gone either way.
      await rm(options.socketPath, { force: true });
    },
  };
  return self;
}
