// Shared basics of the benchmarks: repository paths, the runtime test environment's variables,
// command-line options, logging to stderr (stdout carries the results).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const KUBELET_MAIN = path.join(REPO_ROOT, 'apps/kubelet/dist/main.js');
export const RUNTIME_DIR = process.env.KUBELET_TS_RUNTIME_DIR || '/run/kubelet-ts-runtime';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const log = (msg) => process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${msg}\n`);

/** Loads `$KUBELET_TS_RUNTIME_DIR/env` (written by `scripts/test-runtime.sh up`) without overriding the caller's variables. */
export function loadRuntimeEnv() {
  const envFile = path.join(RUNTIME_DIR, 'env');
  if (!fs.existsSync(envFile)) throw new Error(`no ${envFile}: start the runtime as root with: bash scripts/test-runtime.sh up`);
  for (const line of fs.readFileSync(envFile, 'utf8').split('\n')) {
    const match = /^(?:export\s+)?(KUBELET_TS_[A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match && process.env[match[1]] === undefined) process.env[match[1]] = match[2].replace(/^['"]|['"]$/g, '');
  }
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  if (!fs.existsSync(socket))
    throw new Error(`no containerd socket at ${socket}: start the runtime as root with: bash scripts/test-runtime.sh up`);
}

export function env(name) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set (runtime env file)`);
  return value;
}

/** `--name value` options and `--flag` switches of argv. */
export function parseArgs(argv = process.argv.slice(2)) {
  return {
    argv,
    flag: (name) => argv.includes(`--${name}`),
    option: (name, fallback) => {
      const i = argv.indexOf(`--${name}`);
      return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
    },
    /** Every value of a repeatable option (`--config-line a --config-line b`). */
    all: (name) => argv.flatMap((a, i) => (a === `--${name}` && argv[i + 1] !== undefined ? [argv[i + 1]] : [])),
    number: (name, fallback) => {
      const i = argv.indexOf(`--${name}`);
      const value = i >= 0 ? Number(argv[i + 1]) : fallback;
      if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`);
      return value;
    },
  };
}

/** A UTC stamp for result file names: 2026-11-29T21-05Z. */
export const fileStamp = (date = new Date()) => `${date.toISOString().slice(0, 16).replace(':', '-')}Z`;
