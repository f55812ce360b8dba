#!/usr/bin/env node
// Writes what the upstream kubelet accepts on its command line, from the binary itself, into
// packages/config/src/gen/ (committed; @kubelet-ts/config's tests check KUBELET_FLAGS against it):
//
//   upstream-flags.ts          every flag `kubelet --help` lists: name, shorthand, value type,
//                              default and deprecation text
//   upstream-feature-gates.ts  every feature gate of the kubelet's gate registry: name, default,
//                              stage and whether it is locked to its default
//
// `--help` lists only the alpha and beta gates (component-base's KnownFeatures hides GA and
// deprecated ones, which are the ones that can be locked), so the full registry comes from a small
// Go program linked against the same k8s.io/kubernetes module, run with the Go module cache the
// upstream build left (GOPROXY=off: nothing is fetched). The gates --help shows are cross-checked
// against it, and a locked gate is cross-checked against the binary's own refusal.
//
//   node scripts/upstream/kubelet-flags.mjs [--kubelet PATH] [--skip-go]
//
// --skip-go keeps the committed gate list and only regenerates the flag list.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const versions = Object.fromEntries(
  fs
    .readFileSync(path.join(ROOT, 'scripts/upstream/versions.env'), 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => l.split('=', 2)),
);
const K8S = versions.KUBERNETES_VERSION;
const args = process.argv.slice(2);
const argValue = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const kubelet =
  argValue('--kubelet') ?? path.join(process.env.KUBELET_TS_UPSTREAM_CACHE ?? '/var/cache/kubelet-ts/upstream', K8S, 'bin/kubelet');
const OUT = path.join(ROOT, 'packages/config/src/gen');

const help = execFileSync(kubelet, ['--help'], { encoding: 'utf8' });

// ---- flags: "  -v, --v Level      usage (default 0) (DEPRECATED: text)" plus continuation lines ----
const flags = [];
let current;
for (const line of help.split('\n')) {
  const m = /^ {2}(?:-([a-zA-Z]), )? {0,4}--([a-z0-9-]+)(?: ([a-zA-Z.=,[\]0-9-]+))? {2,}(.*)$/.exec(line);
  if (m) {
    current = { name: m[2], ...(m[1] ? { shorthand: m[1] } : {}), type: m[3] ?? 'bool', usage: m[4] };
    flags.push(current);
  } else if (current && /^ {8,}\S/.test(line)) {
    current.usage += `\n${line.trim()}`;
  } else if (line.trim() === '') {
    current = undefined;
  }
}
for (const flag of flags) {
  const dep = /\(DEPRECATED: (.*)\)\s*$/s.exec(flag.usage);
  if (dep) {
    flag.deprecated = dep[1];
    flag.usage = flag.usage.slice(0, dep.index).trimEnd();
  }
  const def = /\(default (.*?)\)$/s.exec(flag.usage.split('\n')[0]);
  if (def) flag.default = def[1];
  delete flag.usage;
}
if (flags.length < 100) throw new Error(`only ${flags.length} flags parsed from ${kubelet} --help`);

// ---- gates shown by --help ----
const shown = new Map();
for (const m of help.matchAll(/^ {8,}([A-Za-z0-9]+)=true\|false \(([A-Z]+) - default=(true|false)\)(?: \(DEPRECATED: .*\))?$/gm)) {
  shown.set(m[1], { stage: m[2], default: m[3] === 'true' });
}

const GO_DUMP = `package main

import (
	"fmt"
	"sort"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	_ "k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	all := utilfeature.DefaultMutableFeatureGate.GetAll()
	names := []string{}
	for k := range all {
		names = append(names, string(k))
	}
	sort.Strings(names)
	for _, n := range names {
		s := all[featuregate.Feature(n)]
		fmt.Printf("%s\\t%t\\t%s\\t%t\\n", n, s.Default, s.PreRelease, s.LockToDefault)
	}
}
`;

function dumpGates() {
  const gomodcache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const upstreamMod = fs.readFileSync(path.join(gomodcache, `k8s.io/kubernetes@${K8S}`, 'go.mod'), 'utf8');
  const staging = [...upstreamMod.matchAll(/^\s+(k8s\.io\/[a-z0-9-]+) => \.\/staging/gm)].map((m) => m[1]);
  const minor = K8S.replace(/^v1\./, 'v0.');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubelet-gates-'));
  try {
    const replaces = staging.map((mod) => `\t${mod} => ${mod} ${minor}`).join('\n');
    fs.writeFileSync(
      path.join(dir, 'go.mod'),
      `module gatedump\n\ngo 1.24\n\nrequire k8s.io/kubernetes ${K8S}\n\nreplace (\n${replaces}\n)\n`,
    );
    fs.writeFileSync(path.join(dir, 'main.go'), GO_DUMP);
    const env = { ...process.env, GOPROXY: 'off', GOSUMDB: 'off', GOFLAGS: '-mod=mod' };
    const out = execFileSync('go', ['run', '.'], { cwd: dir, env, encoding: 'utf8', maxBuffer: 1 << 24 });
    return out
      .trim()
      .split('\n')
      .map((l) => {
        const [name, def, stage, locked] = l.split('\t');
        // featuregate.GA is the empty string
        return { name, default: def === 'true', stage: stage === '' ? 'GA' : stage, lockToDefault: locked === 'true' };
      });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const banner = (what) => `// Generated by scripts/upstream/kubelet-flags.mjs from the upstream kubelet ${K8S} (${what}). Do not edit.\n`;

const flagLines = flags.map((f) => `  ${JSON.stringify(f)},`).join('\n');
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(
  path.join(OUT, 'upstream-flags.ts'),
  `${banner('`kubelet --help`')}
/** One flag of the upstream kubelet, as its --help prints it. */
export interface UpstreamFlag {
  name: string;
  shorthand?: string;
  /** pflag's value type name (\`bool\` for boolean flags). */
  type: string;
  default?: string;
  /** pflag's deprecation message, printed as "Flag --x has been deprecated, <message>". */
  deprecated?: string;
}

export const UPSTREAM_KUBELET_VERSION = ${JSON.stringify(K8S)};

/** Every flag \`kubelet --help\` of the upstream kubelet lists. */
export const UPSTREAM_KUBELET_FLAGS: readonly UpstreamFlag[] = [
${flagLines}
];
`,
);
console.log(`wrote ${flags.length} flags`);

if (!args.includes('--skip-go')) {
  const gates = dumpGates();
  for (const [name, spec] of shown) {
    const g = gates.find((x) => x.name === name);
    if (!g || g.stage !== spec.stage || g.default !== spec.default)
      throw new Error(`gate ${name}: --help says ${JSON.stringify(spec)}, the registry ${JSON.stringify(g)}`);
  }
  // The binary refuses a locked gate set to the other value before doing anything else.
  const locked = gates.find((g) => g.lockToDefault);
  if (locked) {
    const r = spawnSync(kubelet, [`--feature-gates=${locked.name}=${!locked.default}`], { encoding: 'utf8', timeout: 20_000 });
    const expected = `cannot set feature gate ${locked.name} to ${!locked.default}, feature is locked to ${locked.default}`;
    if (!`${r.stdout}${r.stderr}`.includes(expected)) throw new Error(`the kubelet did not refuse ${locked.name}: ${r.stderr}`);
  }
  const gateLines = gates.map((g) => `  ${JSON.stringify(g)},`).join('\n');
  fs.writeFileSync(
    path.join(OUT, 'upstream-feature-gates.ts'),
    `${banner("the kubelet's DefaultFeatureGate registry, cross-checked with `kubelet --help`")}
/** A gate's maturity, as component-base's featuregate names it. */
export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

/** One feature gate of the upstream kubelet at its own version. */
export interface FeatureGateSpec {
  name: string;
  default: boolean;
  stage: FeatureStage;
  /** Setting it to the other value is an error. */
  lockToDefault: boolean;
}

/** Every feature gate the upstream kubelet knows. */
export const UPSTREAM_FEATURE_GATES: readonly FeatureGateSpec[] = [
${gateLines}
];
`,
  );
  console.log(`wrote ${gates.length} feature gates (${shown.size} shown by --help)`);
}
