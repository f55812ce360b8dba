// The layer rules of docs/architecture.md, checked in CI by `npm run check:layers` (dependency-cruiser).
// Each package's floor is declared once, in FLOORS below; every rule is derived from it and from the
// packages' package.json files. Imports resolve the way Node resolves them (through node_modules and
// each package's exports map, to dist/), so run `npm run build` first, as for typecheck.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/**
 * Floors, bottom up. A package may import packages of LOWER floors only: never a higher floor, and
 * never another package of its own floor (subsystems that need each other declare a small interface
 * or function type, and apps/kubelet wires the real one in). Every directory under packages/ must be
 * listed here; apps/* sit above every floor.
 */
const FLOORS = [
  // Tests only: no-testing-in-production and the devDependency rules keep it out of published code.
  { name: 'test-support', packages: ['test-support'] },
  { name: 'common', packages: ['common'] },
  // The API types and the clients of the node's local services (CRI over gRPC, systemd over D-Bus).
  { name: 'api-and-cri', packages: ['api', 'cri-client', 'dbus'] },
  // Checkpoint files (only common below): the resource managers of the subsystems floor write them.
  { name: 'checkpoints', packages: ['checkpoint-manager'] },
  // The API-server client: above api and common. apps/kubelet imports it, and object-manager (an
  // API-mode-only package that opens a watch per referenced object); other libraries declare ports.
  { name: 'api-client', packages: ['kube-client'] },
  { name: 'runtime-contract', packages: ['container-runtime'] },
  {
    name: 'subsystems',
    packages: [
      'admission',
      'certificate-manager',
      'cpu-manager',
      'topology-manager',
      'cgroup-manager',
      'config',
      'container-logs',
      'credential-provider',
      'events',
      'image-gc',
      'memory-manager',
      'node-shutdown',
      'node-status',
      'object-manager',
      'plugin-manager',
      'pod-sources',
      'probe-runner',
      'runtime-manager',
      'server',
      'stats',
      'status-manager',
      'volume-manager',
    ],
  },
  // Eviction and metrics read the stats Summary types (docs/architecture.md: "reads stats").
  { name: 'stats-readers', packages: ['eviction-manager', 'metrics'] },
  { name: 'pod-lifecycle', packages: ['pod-lifecycle'] },
];

// The files a package publishes as entry points (tsup entries): what they reach is published code.
const PRODUCTION_ENTRIES = 'src/(?:index|main|cli/main)\\.ts$';
const PUBLISHED_ENTRIES = 'src/(?:index|main|cli/main|testing/index)\\.ts$';

const root = __dirname;
const dirsWithManifest = (dir) =>
  fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(root, dir, d.name, 'package.json')))
    .map((d) => d.name);
const manifest = (dir) => JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));

const floorOf = new Map(FLOORS.flatMap((floor, index) => floor.packages.map((name) => [name, index])));
const unknown = dirsWithManifest('packages').filter((name) => !floorOf.has(name));
if (unknown.length > 0) {
  throw new Error(
    `check:layers: no floor for ${unknown.map((n) => `packages/${n}`).join(', ')}. ` +
      'Add each package to FLOORS in .dependency-cruiser.cjs (and to the layers of docs/architecture.md).',
  );
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const oneOf = (names) => `(${names.map(escapeRe).join('|')})`;
const viaName = (group) => `^node_modules/@kubelet-ts/${group}/`;
const apps = dirsWithManifest('apps');
const appNames = apps.map((dir) => manifest(`apps/${dir}`).name.replace(/^@kubelet-ts\//, ''));

const floorRules = FLOORS.map((floor, index) => {
  const below = FLOORS.slice(0, index).flatMap((f) => f.packages);
  const notBelow = FLOORS.slice(index).flatMap((f) => f.packages);
  return {
    name: `floor-${floor.name}`,
    severity: 'error',
    comment:
      `Floor "${floor.name}" (${floor.packages.join(', ')}) may import only lower floors: ` +
      `${below.length > 0 ? below.join(', ') : 'nothing'}. A subsystem that needs another declares a small ` +
      'interface and apps/kubelet wires the real one in. If the package really belongs elsewhere, move it in ' +
      'FLOORS (.dependency-cruiser.cjs) and in docs/architecture.md.',
    from: { path: `^packages/${oneOf(floor.packages)}/` },
    to: { path: viaName(oneOf(notBelow)), pathNot: viaName('$1') },
  };
});

// Published code (what the entry points reach) must import only regular dependencies: one rule per
// package, because each has its own devDependencies.
const devDependencyRules = [...dirsWithManifest('packages').map((d) => `packages/${d}`), ...apps.map((d) => `apps/${d}`)]
  .map((dir) => ({ dir, dev: Object.keys(manifest(dir).devDependencies ?? {}) }))
  .filter(({ dev }) => dev.length > 0)
  .map(({ dir, dev }) => ({
    name: 'no-dev-dependency-in-published-code',
    severity: 'error',
    comment:
      'Published code (what src/index.ts, src/testing/index.ts or src/cli/main.ts reach) imports a ' +
      'devDependency of its package, which consumers do not install (type-only imports count: they end up in the .d.ts). ' +
      'Move it to dependencies, or keep its use in tests.',
    from: { path: `^${escapeRe(dir)}/${PUBLISHED_ENTRIES}` },
    to: { path: `^node_modules/${oneOf(dev)}/`, reachable: true },
  }));

module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: 'not-to-apps',
      severity: 'error',
      comment: 'Nothing imports an app: apps/ wire the packages, never the other way round.',
      from: { path: '^(?:packages|apps)/([^/]+)/' },
      to: { path: [viaName(oneOf(appNames)), '^apps/'], pathNot: ['^apps/$1/', viaName('$1')] },
    },
    {
      name: 'prom-client-only-in-metrics',
      severity: 'error',
      comment: "Only @kubelet-ts/metrics imports prom-client; every other package records through common's Metrics.",
      from: { path: '^(?:packages|apps)/', pathNot: '^packages/metrics/' },
      to: { path: '^node_modules/prom-client/' },
    },
    {
      name: 'only-public-entry-points',
      severity: 'error',
      comment:
        'Import another package only as @kubelet-ts/<pkg> or @kubelet-ts/<pkg>/testing; ' +
        'anything else (src/internal, dist files, package.json) is its internals.',
      from: { path: '^(?:packages|apps)/' },
      to: { path: '^node_modules/@kubelet-ts/', pathNot: '^node_modules/@kubelet-ts/[^/]+/dist/(?:index|testing)\\.(?:d\\.c?ts|c?js)$' },
    },
    {
      name: 'no-relative-import-of-another-package',
      severity: 'error',
      comment: 'Reach another package through its name (@kubelet-ts/<pkg>), never through a relative path into its files.',
      from: { path: '^(?:packages|apps)/([^/]+)/' },
      to: { path: '^(?:packages|apps)/', pathNot: '^(?:packages|apps)/$1/' },
    },
    {
      name: 'no-testing-in-production',
      severity: 'error',
      comment:
        'Production code (what src/index.ts, src/main.ts or src/cli/main.ts reach) never imports a ./testing ' +
        'export or @kubelet-ts/test-support; tests may.',
      from: { path: `^(?:packages|apps)/[^/]+/${PRODUCTION_ENTRIES}` },
      to: {
        path: ['^node_modules/@kubelet-ts/[^/]+/dist/testing\\.', '^(?:packages|apps)/[^/]+/src/testing/', viaName('test-support')],
        reachable: true,
      },
    },
    ...devDependencyRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle inside a package (type-only imports count): split the shared part into its own module.',
      from: { path: '^(?:packages|apps)/' },
      to: { circular: true },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment:
        "Imported but not declared in the package's own package.json: add it to dependencies " +
        '(devDependencies when only tests use it). A hoisted copy in node_modules is luck, not a dependency.',
      from: { path: '^(?:packages|apps)/[^/]+/(?:src|test)/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'Cannot resolve this import. A @kubelet-ts package resolves through its exports map to dist/ ' +
        '(run `npm run build` first), and exports only . and ./testing.',
      from: { path: '^(?:packages|apps)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: '^node_modules/' },
    exclude: { path: ['^(?:packages|apps)/[^/]+/dist/', '/src/gen/'] },
    tsPreCompilationDeps: true,
    // Keep node_modules/@kubelet-ts/<pkg> in resolved paths, so that workspace imports are checked
    // against package.json like any other dependency.
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.cjs', '.mjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
