import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import type { NodeStatusManager } from '@kubelet-ts/node-status';
import type { PodLifecycle } from '@kubelet-ts/pod-lifecycle';
import {
  createHealthzServer,
  createKubeletServer,
  createReadOnlyServer,
  createRouter,
  installContainerLogs,
  installConfigz,
  installDebugFlags,
  installDebugFlagsDisabled,
  installDebuggingDisabled,
  installHealthz,
  installNodeLogs,
  installProfiling,
  installProfilingDisabled,
  installRunningPods,
  installStreaming,
  pingHealthz,
  podListBody,
  sendJson,
  sendText,
} from '@kubelet-ts/server';
import type {
  Authenticator,
  Authorizer,
  ContainerLogsSource,
  KubeletHttpServer,
  KubeletServerTlsOptions,
  Router,
  RunningPodSummary,
  StreamingSource,
  VerbositySetter,
} from '@kubelet-ts/server';
import type { SummaryProvider } from '@kubelet-ts/stats';
import { installMetricsRoutes } from './metrics-routes.js';
import type { KubeletMetrics } from './metrics-routes.js';
import { installNodeRoute } from './node-status.js';
import { serveStatsSummary } from './stats.js';

export interface KubeletServersOptions {
  config: Pick<
    KubeletConfiguration,
    | 'healthzBindAddress'
    | 'healthzPort'
    | 'address'
    | 'readOnlyPort'
    | 'port'
    | 'enableDebuggingHandlers'
    | 'enableSystemLogHandler'
    | 'enableProfilingHandler'
    | 'enableDebugFlagsHandler'
  >;
  lifecycle: Pick<PodLifecycle, 'getPods' | 'healthCheckers'>;
  stats: SummaryProvider;
  nodeStatus: Pick<NodeStatusManager, 'getNode'>;
  metrics: KubeletMetrics;
  /** The authenticated server on `address:port` (API mode with `enableServer`); none without. */
  authenticated?: {
    nodeName: string;
    tls: Omit<KubeletServerTlsOptions, 'cert' | 'key'>;
    /** The serving pair, which may come later (serverTLSBootstrap) and change (rotation, reload). */
    certificates: {
      current(): { cert: string; key: string } | undefined;
      onChange(listener: (pair: { cert: string; key: string }) => void): () => void;
    };
    authenticator: Authenticator;
    authorizer: Authorizer;
    containerLogs: ContainerLogsSource;
    streaming: StreamingSource;
    /** `/configz`: the configuration in effect. */
    configz: () => Record<string, unknown>;
    /** `/runningpods/`: the runtime's running pods. */
    runningPods: () => Promise<readonly RunningPodSummary[]>;
    /** `/logs/`: the node's log directory (upstream's `/var/log`). */
    nodeLogDir: string;
    /** `/debug/flags/v`: the kubelet logger's verbosity. */
    logVerbosity: VerbositySetter;
  };
  logger: Logger;
}

/** The servers the configuration asks for, made at build time and listening only once `listen` is called. */
export interface KubeletServers {
  /** Listens on every configured port (a port that cannot be bound fails start-up, as upstream); logs where. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

interface Server {
  name: string;
  server: KubeletHttpServer;
  host: string;
  port: number;
}

/**
 * healthz (`healthzPort`; `pleg` and `syncloop` checks), the read-only server (`readOnlyPort`:
 * `/pods`, healthz, and the kubelet-ts `/stats/summary` and `/node`) and the authenticated server
 * (`port`: healthz, `/pods`, `/stats/summary`, `/containerLogs`, `/exec`, `/attach`, `/portForward`,
 * `/run`). A port of 0 turns a server off.
 */
export function createKubeletServers(options: KubeletServersOptions): KubeletServers {
  const { config, lifecycle, logger } = options;
  const checks = [pingHealthz, ...lifecycle.healthCheckers];
  const servers: Server[] = [];
  if (config.healthzPort > 0) {
    servers.push({
      name: 'healthz',
      server: createHealthzServer({ checks, logger }),
      host: config.healthzBindAddress,
      port: config.healthzPort,
    });
  }
  if (config.readOnlyPort > 0) {
    const readOnly = createReadOnlyServer({ getPods: () => lifecycle.getPods(), checks, logger });
    serveStatsSummary(readOnly, options.stats, logger);
    installNodeRoute(readOnly.router, options.nodeStatus);
    installMetricsRoutes(readOnly.router, options.metrics);
    servers.push({ name: 'read-only', server: readOnly, host: config.address, port: config.readOnlyPort });
  }
  const auth = options.authenticated;
  if (auth !== undefined && config.port > 0) {
    const router = createRouter({ logger });
    installHealthz(router, { checks, logger });
    router.get('/pods', async (_req, res) => sendJson(res, 200, podListBody(lifecycle.getPods())));
    serveStatsSummary({ router }, options.stats, logger);
    installMetricsRoutes(router, options.metrics);
    if (config.enableDebuggingHandlers !== false) installDebuggingHandlers(router, auth, config, logger);
    else installDebuggingDisabled(router);
    const server = createKubeletServer({ ...auth, tls: { ...auth.tls, ...auth.certificates.current() }, router, logger });
    // A renewed serving certificate, or reloaded tlsCertFile, serves the next handshakes.
    auth.certificates.onChange((pair) => {
      try {
        server.setCertificate(pair);
        logger.info('Serving certificate updated', { server: 'kubelet' });
      } catch (err) {
        logger.error('Serving certificate not usable, keeping the current one', { err: errorMessage(err) });
      }
    });
    servers.push({ name: 'kubelet', server, host: config.address, port: config.port });
  }
  const listening: Server[] = [];
  return {
    async listen() {
      for (const s of servers) {
        const address = await s.server.listen(s.host, s.port);
        listening.push(s);
        logger.info('Serving', { server: s.name, address: `${address.host}:${address.port}` });
      }
    },
    async close() {
      // In reverse order of opening, as the kubelet shut them down before.
      for (const s of listening.splice(0).reverse()) {
        await s.server
          .close()
          .catch((err: unknown) => logger.warn('Error while shutting down', { server: s.name, err: errorMessage(err) }));
      }
    },
  };
}

/**
 * Upstream InstallDebuggingHandlers, InstallSystemLogHandler, InstallProfilingHandler and
 * InstallDebugFlagsHandler (all under `enableDebuggingHandlers`): logs, streaming, /configz,
 * /runningpods/; `/logs/` unless `enableSystemLogHandler` is off (405 `logs endpoint is disabled.`);
 * `/debug/pprof/` (V8 profiles) unless `enableProfilingHandler` is off (405 `profiling endpoint is
 * disabled.`); `/debug/flags/v` unless `enableDebugFlagsHandler` is off (405 `flags endpoint is
 * disabled.`).
 */
function installDebuggingHandlers(
  router: Router,
  auth: NonNullable<KubeletServersOptions['authenticated']>,
  config: KubeletServersOptions['config'],
  logger: Logger,
): void {
  installContainerLogs(router, auth.containerLogs);
  installStreaming(router, auth.streaming);
  installConfigz(router, auth.configz);
  installRunningPods(router, auth.runningPods);
  if (config.enableSystemLogHandler !== false) installNodeLogs(router, { dir: auth.nodeLogDir });
  else router.add('*', '/logs/*', async (_req, res) => sendText(res, 405, 'logs endpoint is disabled.\n'));
  if (config.enableProfilingHandler !== false) installProfiling(router, { logger: logger.child({ component: 'pprof' }) });
  else installProfilingDisabled(router);
  if (config.enableDebugFlagsHandler !== false) installDebugFlags(router, { verbosity: auth.logVerbosity });
  else installDebugFlagsDisabled(router);
}
