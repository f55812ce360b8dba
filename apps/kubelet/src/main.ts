/**
 * kubelet-ts: the node agent binary. Parses, builds, runs: the kubelet itself is ./kubelet.ts
 * (wiring) and the @kubelet-ts libraries (behaviour).
 */
import { loadOptionsOrExit } from './internal/cli.js';
import { setupHost } from './internal/host-setup.js';
import { createKubeletLogger } from './internal/logging.js';
import { abortOnSignals, applyOomScoreAdj, unlessStopped } from './internal/process.js';
import { buildKubelet, resolveNode, startupSummary } from './kubelet.js';

const options = await loadOptionsOrExit(process.argv.slice(2));
const { config } = options;
const logger = createKubeletLogger({ verbosity: config.logging.verbosity, format: config.logging.format === 'json' ? 'json' : 'text' });
for (const warning of options.warnings) logger.warn(warning);
const node = resolveNode(options.flags);
logger.info('Starting kubelet-ts', startupSummary(options, node));
const shutdown = abortOnSignals(logger);
await applyOomScoreAdj(config.oomScoreAdj, logger);
// failSwapOn, protectKernelDefaults and maxOpenFiles, as upstream; a host the kubelet must not run on stops it.
await setupHost(config, logger).catch((err: unknown) => {
  logger.error('Failed to set up the host for the kubelet', { err });
  process.exit(1);
});

const kubelet = await unlessStopped(
  buildKubelet(options, { logger, logVerbosity: logger, node, signal: shutdown.signal }),
  shutdown.signal,
  logger,
);
await kubelet.run(shutdown.signal);
logger.info('kubelet-ts stopped; pods keep running');
process.exit(0);
