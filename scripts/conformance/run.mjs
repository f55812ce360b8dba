#!/usr/bin/env node
// The node-conformance runner: the upstream e2e suite's [NodeConformance] specs (e2e.test at the
// control plane's version) against one kubelet — kubelet-ts, or the upstream kubelet as the control —
// as the only node of the test bed's real control plane, on the private containerd.
//
//   node scripts/conformance/run.mjs [--kubelet kubelet-ts|upstream] [--subset ci]
//        [--focus REGEX] [--skip REGEX] [--procs N] [--record] [--keep] [--no-setup]
//
//   --kubelet   which kubelet runs the node (default kubelet-ts)
//   --subset ci the specs of scripts/conformance/ci-subset.txt (the CI run) instead of all
//   --focus     a ginkgo focus regex, instead of '\[NodeConformance\]'
//   --skip      a ginkgo skip regex (default '\[Flaky\]|\[Disruptive\]|\[Feature:.+\]')
//   --procs     parallel ginkgo processes (default 2; [Serial] specs run alone at the end)
//   --record    keep the results in conformance/results/<kubelet>-<date>.json (docs/conformance.md
//               is generated from the newest of each kubelet)
//   --keep      leave the runtime and the control plane up afterwards (they are torn down otherwise,
//               unless they were already up when the run started)
//   --no-setup  do not build or start anything: the test bed is up (used by the CI wrapper)
//
// Writes the ginkgo log, JUnit report, kubelet log and results JSON under $KUBELET_TS_CONFORMANCE_DIR
// (default /var/tmp/kubelet-ts-conformance/<kubelet>-<time>); exits 1 when a selected spec fails.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readEnvFile, startUpstreamKubelet } from '../lib/upstream-kubelet.mjs';
import { readJunit } from './junit.mjs';

const require = createRequire(import.meta.url);
const { acquireRuntimeLock, releaseRuntimeLock, runtimeLockDir } = require('../runtime-lock.cjs');

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNTIME_DIR = process.env.KUBELET_TS_RUNTIME_DIR ?? '/run/kubelet-ts-runtime';
const CONTROL_PLANE_DIR = process.env.KUBELET_TS_CONTROL_PLANE_DIR ?? '/run/kubelet-ts-control-plane';
const DEFAULT_SKIP = String.raw`\[Flaky\]|\[Disruptive\]|\[Feature:.+\]`;
const START = Date.now();

const { values: opts } = parseArgs({
  options: {
    kubelet: { type: 'string', default: 'kubelet-ts' },
    subset: { type: 'string' },
    focus: { type: 'string' },
    skip: { type: 'string', default: DEFAULT_SKIP },
    procs: { type: 'string', default: '2' },
    record: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'no-setup': { type: 'boolean', default: false },
  },
});
if (!['kubelet-ts', 'upstream'].includes(opts.kubelet)) fail(`--kubelet: expected kubelet-ts or upstream, got ${opts.kubelet}`);
if (opts.subset !== undefined && opts.subset !== 'ci') fail(`--subset: the only subset is ci, got ${opts.subset}`);
const procs = Number(opts.procs);
if (!Number.isInteger(procs) || procs < 1 || procs > 8) fail(`--procs: expected 1..8, got ${opts.procs}`);

function log(line) {
  process.stderr.write(`[conformance ${((Date.now() - START) / 1000).toFixed(0).padStart(5)}s] ${line}\n`);
}
function fail(message) {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}
function sh(command, args, env = {}) {
  const r = spawnSync(command, args, { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const escapeRegex = (text) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/** The focus regex: the CI subset's lines (each a literal part of one spec's name), or the given one, or all. */
function focusRegex() {
  if (opts.subset === 'ci') {
    const lines = fs
      .readFileSync(path.join(REPO, 'scripts/conformance/ci-subset.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    return lines.map(escapeRegex).join('|');
  }
  return opts.focus ?? String.raw`\[NodeConformance\]`;
}

const alreadyUp = fs.existsSync(path.join(RUNTIME_DIR, 'env')) && fs.existsSync(path.join(CONTROL_PLANE_DIR, 'env'));

function setUp() {
  log('building the upstream components the run needs (cached after the first time)');
  sh('bash', ['scripts/upstream/build.sh', '--only', 'control-plane,kubelet,kubectl,crictl,conformance']);
  if (opts.kubelet === 'kubelet-ts') sh('npx', ['turbo', 'run', 'build', '--filter=@kubelet-ts/kubelet', '--output-logs=errors-only']);
  sh('bash', ['scripts/test-runtime.sh', 'up'], { KUBELET_TS_CONTAINERD: process.env.KUBELET_TS_CONTAINERD ?? '2' });
  sh('bash', ['scripts/control-plane.sh', 'up']);
}

function tearDown() {
  if (opts.keep || alreadyUp || opts['no-setup']) return;
  log('tearing the test bed down');
  try {
    sh('bash', ['scripts/control-plane.sh', 'down']);
  } finally {
    sh('bash', ['scripts/test-runtime.sh', 'down']);
  }
}

function kubectl(env, ...args) {
  return execFileSync(path.join(env.KUBELET_TS_UPSTREAM_BIN_DIR, 'kubectl'), [`--kubeconfig=${env.KUBELET_TS_KUBECONFIG}`, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
}

async function waitNodeReady(env, node, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const ready = kubectl(env, 'get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
      if (ready.trim() === 'True') return;
    } catch {
      // not registered yet
    }
    if (Date.now() > deadline) throw new Error(`node ${node} was not Ready within ${timeoutMs / 1000} s`);
    await sleep(1000);
  }
}

/**
 * Drops the conformance images from containerd, so that the run pulls what the registry has now
 * (containerd keeps a tag's old image when the registry's changes) and pulls are exercised.
 */
function removeConformanceImages(env) {
  const crictl = (...args) =>
    execFileSync(path.join(env.KUBELET_TS_UPSTREAM_BIN_DIR, 'crictl'), ['--runtime-endpoint', env.KUBELET_TS_CRI_ENDPOINT, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
  // The images `test-runtime.sh conformance-images` pushed, one per line.
  const pushed = new Set(fs.readFileSync(path.join(RUNTIME_DIR, 'conformance/images.txt'), 'utf8').split('\n').filter(Boolean));
  const refs = JSON.parse(crictl('images', '-o', 'json')).images.flatMap((i) => i.repoTags ?? []);
  const ours = refs.filter((r) => pushed.has(r));
  if (ours.length > 0) crictl('rmi', ...ours);
  log(`removed ${ours.length} conformance image tags from containerd`);
}

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** Runs ginkgo with e2e.test; its output goes to the console and to ginkgo.log. */
function runGinkgo(env, runDir, focus) {
  const bin = env.KUBELET_TS_UPSTREAM_BIN_DIR;
  const args = [
    `--procs=${procs}`,
    '--timeout=5h',
    '--no-color',
    '--silence-skips',
    '--poll-progress-after=300s',
    `--focus=${focus}`,
    `--skip=${opts.skip}`,
    `--output-dir=${runDir}`,
    '--junit-report=junit.xml',
    path.join(bin, 'e2e.test'),
    '--',
    `--kubeconfig=${env.KUBELET_TS_KUBECONFIG}`,
    '--provider=local',
    `--kube-test-repo-list=${path.join(RUNTIME_DIR, 'conformance/repo-list.yaml')}`,
    `--kubectl-path=${path.join(bin, 'kubectl')}`,
    `--container-runtime-endpoint=${env.KUBELET_TS_CRI_ENDPOINT}`,
    '--num-nodes=1',
    '--node-schedulable-timeout=2m',
    '--system-pods-startup-timeout=1m',
    '--dump-logs-on-failure=false',
  ];
  log(`ginkgo ${args.join(' ')}`);
  const out = fs.openSync(path.join(runDir, 'ginkgo.log'), 'a');
  return new Promise((resolve) => {
    const child = spawn(path.join(bin, 'ginkgo'), args, { cwd: runDir, stdio: ['ignore', 'pipe', 'pipe'] });
    const tee = (chunk) => {
      fs.writeSync(out, chunk);
      process.stdout.write(chunk);
    };
    child.stdout.on('data', tee);
    child.stderr.on('data', tee);
    child.on('exit', (code, signal) => {
      fs.closeSync(out);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function summarize(specs) {
  const count = (state) => specs.filter((s) => s.state === state).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), total: specs.length };
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  // What is tested is the tree at the start (a "+" marks uncommitted changes).
  const commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') === '' ? '' : '+');
  const runDir = path.join(process.env.KUBELET_TS_CONFORMANCE_DIR ?? '/var/tmp/kubelet-ts-conformance', `${opts.kubelet}-${stamp}`);
  fs.mkdirSync(runDir, { recursive: true });
  log(`run dir ${runDir}`);
  if (!opts['no-setup']) setUp();
  sh('bash', ['scripts/test-runtime.sh', 'conformance-images']);
  const env = {
    ...process.env,
    ...readEnvFile(path.join(RUNTIME_DIR, 'env')),
    ...readEnvFile(path.join(CONTROL_PLANE_DIR, 'env')),
  };
  const lockDir = runtimeLockDir(RUNTIME_DIR);
  await acquireRuntimeLock(lockDir, 60 * 60_000, (holder) => log(`waiting for pid ${holder} to release ${lockDir}`));
  let kubelet;
  let code = 1;
  try {
    removeConformanceImages(env);
    // The suite waits for every node to be schedulable: nodes left by earlier runs must go.
    kubectl(env, 'delete', 'nodes', '--all', '--wait=false');
    const ours = opts.kubelet === 'kubelet-ts';
    kubelet = await startUpstreamKubelet({
      env,
      dir: path.join(runDir, 'kubelet'),
      nodeName: ours ? env.KUBELET_TS_NODE_NAME : env.KUBELET_TS_UPSTREAM_NODE_NAME,
      nodeIP: ours ? env.KUBELET_TS_NODE_IP : env.KUBELET_TS_UPSTREAM_NODE_IP,
      ...(ours ? { command: [path.join(REPO, 'apps/kubelet/dist/main.js')], name: 'kubelet-ts' } : {}),
      log,
    });
    await waitNodeReady(env, kubelet.nodeName);
    log(`node ${kubelet.nodeName} is Ready`);
    const focus = focusRegex();
    const started = Date.now();
    const ginkgoCode = await runGinkgo(env, runDir, focus);
    const junit = path.join(runDir, 'junit.xml');
    if (!fs.existsSync(junit)) throw new Error(`ginkgo exited ${ginkgoCode} without a JUnit report (see ${runDir}/ginkgo.log)`);
    // The report lists every spec of the binary; keep the selected ones (Go's and JS's regex syntax
    // agree on what these patterns use).
    const focusRe = new RegExp(focus);
    const skipRe = new RegExp(opts.skip);
    const specs = readJunit(junit).filter((s) => focusRe.test(s.name) && !skipRe.test(s.name));
    const result = {
      kubelet: opts.kubelet,
      date: new Date().toISOString(),
      commit,
      kubernetesVersion: env.KUBELET_TS_K8S_VERSION,
      containerd: env.KUBELET_TS_CONTAINERD_VERSION,
      focus,
      skip: opts.skip,
      procs,
      durationSeconds: Math.round((Date.now() - started) / 1000),
      summary: summarize(specs),
      specs: specs.sort((a, b) => a.name.localeCompare(b.name)),
    };
    fs.writeFileSync(path.join(runDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
    if (opts.record) {
      const dir = path.join(REPO, 'conformance/results');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${opts.kubelet}-${stamp.slice(0, 10)}.json`), `${JSON.stringify(result, null, 2)}\n`);
      log(`recorded in ${dir}`);
    }
    const s = result.summary;
    // scripts/test-all.sh adds every suite's counts into the CI total.
    if (process.env.KUBELET_TS_TEST_SUMMARY)
      fs.appendFileSync(process.env.KUBELET_TS_TEST_SUMMARY, `conformance-${opts.kubelet}\t${s.passed}\t${s.failed}\t${s.skipped}\n`);
    log(
      `${opts.kubelet}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped in ${result.durationSeconds} s (ginkgo exit ${ginkgoCode})`,
    );
    for (const spec of specs.filter((x) => x.state === 'failed')) log(`FAILED: ${spec.name}\n    ${(spec.message ?? '').split('\n')[0]}`);
    code = s.failed === 0 && s.passed > 0 && ginkgoCode === 0 ? 0 : 1;
  } finally {
    if (kubelet) {
      fs.copyFileSync(kubelet.logFile, path.join(runDir, 'kubelet.log'));
      await kubelet.stop().catch((err) => log(`stopping the kubelet: ${err.message}`));
    }
    releaseRuntimeLock(lockDir);
    tearDown();
  }
  log(`done: ${runDir}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`ERROR: ${err.stack ?? err}`);
    process.exit(1);
  },
);
