#!/usr/bin/env bash
# What making the node CSR costs the kubelet's process: this package's DER encoder against
# @peculiar/x509 2.2.0 (+ reflect-metadata, which its tsyringe needs). Seven fresh processes each;
# prints the medians of load time, first-CSR time and RSS growth. Run after `npm ci` at the root.
# Everything it installs goes to a temporary directory, removed on exit.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm install --prefix "$work" --no-audit --no-fund --loglevel=error @peculiar/x509@2.2.0 reflect-metadata@0.2.2 >/dev/null
mkdir -p "$work/ours"
"$root/node_modules/.bin/esbuild" "$here/src/csr.ts" --bundle --platform=node --format=cjs \
  --outfile="$work/ours/csr.cjs" --external:@kubelet-ts/common --log-level=warning
cat > "$work/measure.cjs" <<'JS'
// One fresh process per sample: the RSS growth and the time to load the
// CSR code and make one node CSR, over a process that already holds @kubelet-ts/common.
const nodeCrypto = require('node:crypto');
const which = process.argv[2];
require('@kubelet-ts/common');
global.gc?.();
const rss0 = process.memoryUsage().rss;
const t0 = process.hrtime.bigint();
let make = async () => '';
if (which === 'ours') {
  const m = require('./ours/csr.cjs');
  make = async () => {
    const { privateKey } = nodeCrypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    return m.makeCsrPem(privateKey, m.nodeClientSubject('n1'));
  };
} else if (which === 'peculiar') {
  require('reflect-metadata');
  const x509 = require('@peculiar/x509');
  x509.cryptoProvider.set(nodeCrypto.webcrypto);
  make = async () => {
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await nodeCrypto.webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: 'O=system:nodes, CN=system:node:n1',
      keys,
      signingAlgorithm: alg,
    });
    return csr.toString('pem');
  };
}
const t1 = process.hrtime.bigint();
void make().then((pem) => {
  const t2 = process.hrtime.bigint();
  global.gc?.();
  const rss1 = process.memoryUsage().rss;
  const loadMs = Number(t1 - t0) / 1e6;
  const firstCsrMs = Number(t2 - t1) / 1e6;
  console.log(JSON.stringify({ which, loadMs, firstCsrMs, rssDeltaKiB: Math.round((rss1 - rss0) / 1024), pemBytes: pem.length }));
});
JS
cd "$work"
for which in none ours peculiar; do
  for _ in 1 2 3 4 5 6 7; do NODE_PATH="$root/node_modules" node --expose-gc measure.cjs "$which"; done
done | node -e '
  const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const which of ["none", "ours", "peculiar"]) {
    const r = rows.filter((x) => x.which === which);
    console.log(`${which.padEnd(9)} load ${median(r.map((x) => x.loadMs)).toFixed(1)} ms  first CSR ${median(r.map((x) => x.firstCsrMs)).toFixed(1)} ms  RSS +${(median(r.map((x) => x.rssDeltaKiB)) / 1024).toFixed(1)} MiB`);
  }'
