#!/usr/bin/env node
// Builds a single-layer OCI image archive offline and deterministically, for the
// runtime test environment (scripts/test-runtime.sh).
//
//   node scripts/runtime/build-image.mjs <spec.json>...
//
// The spec names the image, the output archive, the image config and every entry
// of the root filesystem (so the layer never depends on the host's umask, owners
// or timestamps):
//   {
//     "ref": "localhost/kubelet-ts/pause:test",
//     "out": "/run/kubelet-ts-runtime/images/pause.tar",
//     "config": { "Entrypoint": ["/pause"], "Env": ["PATH=..."] },
//     "rootfs": [
//       { "type": "dir", "path": "tmp", "mode": "1777" },
//       { "type": "file", "path": "pause", "source": "/path/to/binary", "mode": "0755" },
//       { "type": "file", "path": "etc/passwd", "content": "root:x:0:0...\n", "mode": "0644" },
//       { "type": "symlink", "path": "bin/sh", "target": "busybox" }
//     ]
//   }
// Layer and archive tars are written by GNU tar with sorted names, owner 0 and
// mtime 0; JSON documents have a fixed key order. The same inputs give the same
// bytes, so the same digests. When the inputs (spec, source file contents and
// this script) are unchanged since the last build, nothing is rebuilt.
// Prints one line per spec: `<ref> <manifest digest> built|cached`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const MEDIA_INDEX = 'application/vnd.oci.image.index.v1+json';
const MEDIA_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const MEDIA_CONFIG = 'application/vnd.oci.image.config.v1+json';
const MEDIA_LAYER = 'application/vnd.oci.image.layer.v1.tar';
const EPOCH = '1970-01-01T00:00:00Z';
// Options shared by both tar invocations: what makes the output reproducible.
const TAR_DETERMINISM = ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '--format=gnu'];

function fail(message) {
  process.stderr.write(`build-image: ${message}\n`);
  process.exit(1);
}

function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

function goArch() {
  const arches = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };
  const arch = arches[process.arch];
  if (!arch) fail(`unsupported architecture ${process.arch}`);
  return arch;
}

function readSpec(specPath) {
  let spec;
  try {
    spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  } catch (err) {
    fail(`${specPath}: cannot read the spec: ${err.message}`);
  }
  const problems = [];
  if (typeof spec.ref !== 'string' || !/^[a-z0-9./_:-]+:[\w.-]+$/.test(spec.ref)) problems.push('ref: expected name:tag');
  if (typeof spec.out !== 'string' || !path.isAbsolute(spec.out)) problems.push('out: expected an absolute path');
  if (typeof spec.config !== 'object' || spec.config === null) problems.push('config: expected an object');
  if (!Array.isArray(spec.rootfs) || spec.rootfs.length === 0) problems.push('rootfs: expected a non-empty array');
  (spec.rootfs ?? []).forEach((entry, i) => {
    const where = `rootfs[${i}]`;
    if (typeof entry.path !== 'string' || entry.path === '' || entry.path.startsWith('/') || entry.path.split('/').includes('..')) {
      problems.push(`${where}.path: expected a relative path without ..`);
    }
    if (entry.type === 'symlink') {
      if (typeof entry.target !== 'string' || entry.target === '') problems.push(`${where}.target: expected a string`);
    } else if (entry.type === 'dir' || entry.type === 'file') {
      if (typeof entry.mode !== 'string' || !/^[0-7]{3,4}$/.test(entry.mode)) problems.push(`${where}.mode: expected octal like "0755"`);
      if (entry.type === 'file' && (typeof entry.source === 'string') === (typeof entry.content === 'string')) {
        problems.push(`${where}: expected exactly one of source or content`);
      }
    } else {
      problems.push(`${where}.type: expected dir, file or symlink`);
    }
  });
  if (problems.length > 0) fail(`${specPath}: invalid spec:\n  ${problems.join('\n  ')}`);
  return spec;
}

function inputsDigest(spec) {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  hash.update(JSON.stringify(spec));
  for (const entry of spec.rootfs) {
    if (entry.type === 'file' && entry.source) hash.update(fs.readFileSync(entry.source));
  }
  return hash.digest('hex');
}

function tar(args, cwd) {
  const result = spawnSync('tar', [...TAR_DETERMINISM, ...args], { cwd, encoding: 'utf8' });
  if (result.error) fail(`tar: ${result.error.message}`);
  if (result.status !== 0) fail(`tar ${args.join(' ')} failed: ${result.stderr.trim()}`);
}

function stageRootfs(spec, dir) {
  // Parents first, so every directory exists before its files.
  const entries = [...spec.rootfs].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const entry of entries) {
    const target = path.join(dir, entry.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (entry.type === 'dir') {
      fs.mkdirSync(target, { recursive: true });
    } else if (entry.type === 'file') {
      if (entry.source) fs.copyFileSync(entry.source, target);
      else fs.writeFileSync(target, entry.content);
    } else {
      fs.symlinkSync(entry.target, target);
    }
    if (entry.type !== 'symlink') fs.chmodSync(target, parseInt(entry.mode, 8));
  }
  // Implicit parent directories get 0755 whatever the umask was.
  const explicit = new Set(spec.rootfs.filter((e) => e.type === 'dir').map((e) => path.join(dir, e.path)));
  const walk = (current) => {
    for (const item of fs.readdirSync(current, { withFileTypes: true })) {
      if (!item.isDirectory()) continue;
      const full = path.join(current, item.name);
      if (!explicit.has(full)) fs.chmodSync(full, 0o755);
      walk(full);
    }
  };
  walk(dir);
}

function writeBlob(layoutDir, data) {
  const digest = sha256(data);
  fs.writeFileSync(path.join(layoutDir, 'blobs', 'sha256', digest), data, { mode: 0o644 });
  return { digest: `sha256:${digest}`, size: data.length };
}

function build(spec, inputs) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-image-'));
  try {
    const rootfs = path.join(work, 'rootfs');
    const layout = path.join(work, 'layout');
    fs.mkdirSync(rootfs);
    fs.mkdirSync(path.join(layout, 'blobs', 'sha256'), { recursive: true });
    stageRootfs(spec, rootfs);

    const layerPath = path.join(work, 'layer.tar');
    tar(['--create', `--file=${layerPath}`, ...fs.readdirSync(rootfs).sort()], rootfs);
    const layer = writeBlob(layout, fs.readFileSync(layerPath));

    const architecture = goArch();
    const imageConfig = {
      architecture,
      os: 'linux',
      created: EPOCH,
      config: spec.config,
      rootfs: { type: 'layers', diff_ids: [layer.digest] },
      history: [{ created: EPOCH, created_by: 'kubelet-ts scripts/runtime/build-image.mjs' }],
    };
    const config = writeBlob(layout, Buffer.from(JSON.stringify(imageConfig)));
    const manifestDoc = {
      schemaVersion: 2,
      mediaType: MEDIA_MANIFEST,
      config: { mediaType: MEDIA_CONFIG, ...config },
      layers: [{ mediaType: MEDIA_LAYER, ...layer }],
    };
    const manifest = writeBlob(layout, Buffer.from(JSON.stringify(manifestDoc)));
    const tag = spec.ref.slice(spec.ref.lastIndexOf(':') + 1);
    const index = {
      schemaVersion: 2,
      mediaType: MEDIA_INDEX,
      manifests: [
        {
          mediaType: MEDIA_MANIFEST,
          ...manifest,
          platform: { architecture, os: 'linux' },
          // containerd's importer names the image from io.containerd.image.name;
          // OCI tools (skopeo) look up org.opencontainers.image.ref.name (the tag).
          annotations: { 'io.containerd.image.name': spec.ref, 'org.opencontainers.image.ref.name': tag },
        },
      ],
    };
    fs.writeFileSync(path.join(layout, 'index.json'), JSON.stringify(index), { mode: 0o644 });
    fs.writeFileSync(path.join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }), { mode: 0o644 });

    fs.mkdirSync(path.dirname(spec.out), { recursive: true });
    const tmpOut = `${spec.out}.tmp-${process.pid}`;
    tar(['--create', '--mode=u=rwX,go=rX', `--file=${tmpOut}`, 'blobs', 'index.json', 'oci-layout'], layout);
    fs.renameSync(tmpOut, spec.out);
    fs.writeFileSync(`${spec.out}.digest`, `${manifest.digest}\n`);
    fs.writeFileSync(`${spec.out}.inputs`, `${inputs}\n`);
    return manifest.digest;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function buildOne(specPath) {
  const spec = readSpec(specPath);
  const inputs = inputsDigest(spec);
  const readOr = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '');
  if (fs.existsSync(spec.out) && readOr(`${spec.out}.inputs`) === inputs && readOr(`${spec.out}.digest`) !== '') {
    process.stdout.write(`${spec.ref} ${readOr(`${spec.out}.digest`)} cached\n`);
    return;
  }
  const digest = build(spec, inputs);
  process.stdout.write(`${spec.ref} ${digest} built\n`);
}

function main() {
  const specPaths = process.argv.slice(2);
  if (specPaths.length === 0) fail('usage: build-image.mjs <spec.json>...');
  for (const specPath of specPaths) buildOne(specPath);
}

main();
