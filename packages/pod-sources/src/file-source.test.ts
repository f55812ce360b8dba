import { mkdtemp, mkdir, rm, stat, unlink, utimes, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createFileSource, createFileSourceWithFs, nodeManifestFs } from './file-source.js';
import type { ManifestFs } from './file-source.js';
import { eventually, runSource } from './internal/test-helpers.js';
import type { SourceError, SourceEvent } from './types.js';

const podYaml = (name: string, image = 'nginx:1.25', containerName = 'app') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: ${containerName}
    image: ${image}
    resources:
      limits: {cpu: 500m, memory: 64Mi}
`;

const names = (event: SourceEvent | undefined): string[] =>
  event?.kind === 'set' ? event.pods.map((p: Pod) => p.metadata.name) : ['<not a set>'];
const errorsOf = (events: SourceEvent[]): SourceError[] => events.flatMap((e) => (e.kind === 'error' ? e.errors : []));

describe('createFileSource', () => {
  let dir: string;
  let stops: Array<() => Promise<void>> = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pod-sources-'));
  });
  afterEach(async () => {
    for (const stop of stops) await stop();
    stops = [];
    await rm(dir, { recursive: true, force: true });
  });

  /** A source with watching off: relists happen at start and whenever the fake clock passes the period. */
  const start = (
    path = dir,
    extra: { maxFileBytes?: number; allowedObjectReferences?: Array<'configMapVolumes' | 'secretVolumes' | 'csiVolumes'> } = {},
  ) => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const run = runSource(createFileSource({ path, nodeName: 'node-a', clock, logger, watch: false, checkFrequencyMs: 20_000, ...extra }));
    stops.push(run.stop);
    const relist = async (): Promise<SourceEvent> => {
      const before = run.sets().length;
      await clock.advance(20_000);
      return eventually(() => run.sets()[before], 5000, 'relist');
    };
    return { ...run, clock, logger, first: () => eventually(() => run.sets()[0], 5000, 'first set'), relist };
  };

  it('reads every valid manifest of the directory, ignoring dotfiles and subdirectories', async () => {
    await writeFile(join(dir, 'a.yaml'), podYaml('a'));
    await writeFile(
      join(dir, 'b.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: { containers: [{ name: 'c', image: 'x:1' }] } }),
    );
    await writeFile(join(dir, '.c.yaml.swp'), podYaml('hidden'));
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'd.yaml'), podYaml('nested'));
    const src = start();
    const first = await src.first();
    expect(names(first)).toEqual(['a-node-a', 'b-node-a']);
    const a = first.kind === 'set' ? first.pods[0] : undefined;
    expect(a?.spec.nodeName).toBe('node-a');
    expect(a?.metadata.annotations?.['kubernetes.io/config.source']).toBe('file');
    expect(a?.metadata.annotations?.['kubernetes.io/config.hash']).toBe(a?.metadata.uid);
    expect(errorsOf(src.events)).toEqual([]);
  });

  it('refuses a configMap volume in a static pod unless the kubelet can serve it', async () => {
    const withConfigMap = podYaml('cfg').replace('spec:\n', 'spec:\n  volumes:\n  - name: cfg\n    configMap:\n      name: app\n');
    await writeFile(join(dir, 'cfg.yaml'), withConfigMap);
    const refused = start();
    expect(names(await refused.first())).toEqual([]);
    expect(errorsOf(refused.events).map((e) => `${e.path}: ${e.reason}`)).toEqual([
      'spec.volumes[0].configMap: Forbidden: static pods may not reference configmaps (via configmap volumes)',
    ]);
    const allowed = start(dir, { allowedObjectReferences: ['configMapVolumes'] });
    expect(names(await allowed.first())).toEqual(['cfg-node-a']);
  });

  it('rejects invalid files with file, path and reason while other files keep working', async () => {
    await writeFile(join(dir, 'good.yaml'), podYaml('good'));
    await writeFile(join(dir, 'bad-name.yaml'), podYaml('bad', 'nginx', 'Foo'));
    await writeFile(join(dir, 'bad-yaml.yaml'), 'kind: Pod\nspec: [\n');
    await writeFile(join(dir, 'deploy.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n');
    await writeFile(join(dir, 'no-containers.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: e}\nspec: {}\n');
    await writeFile(join(dir, 'quantity.yaml'), podYaml('q').replace('64Mi', '64MB'));
    await writeFile(
      join(dir, 'probe.yaml'),
      podYaml('p').replace('    resources:', '    livenessProbe: {httpGet: {port: 0}}\n    resources:'),
    );
    await writeFile(join(dir, 'multi.yaml'), `${podYaml('m1')}---\n${podYaml('m2')}`);
    const src = start();
    expect(names(await src.first())).toEqual(['good-node-a']);
    const errors = errorsOf(src.events).map((e) => `${e.file.slice(dir.length + 1)}|${e.path}|${e.reason}`);
    expect(errors).toEqual([
      expect.stringMatching(/^bad-name\.yaml\|spec\.containers\[0\]\.name\|Invalid value "Foo": must be a DNS-1123 label/),
      expect.stringMatching(/^bad-yaml\.yaml\|\|invalid YAML: .*line/),
      'deploy.yaml|kind|Invalid value "Deployment": must be "Pod"',
      'deploy.yaml|apiVersion|Invalid value "apps/v1": must be "v1"',
      'multi.yaml||found 2 YAML documents: a manifest file must hold exactly one Pod',
      'no-containers.yaml|spec.containers|Required value',
      'probe.yaml|spec.containers[0].livenessProbe.httpGet.port|Invalid value 0: must be between 1 and 65535, inclusive',
      expect.stringMatching(
        /^quantity\.yaml\|spec\.containers\[0\]\.resources\.limits\[memory\]\|Invalid value "64MB": quantities must match/,
      ),
    ]);
    expect(src.logger.find('Invalid static pod manifest')).toHaveLength(8);
  });

  it('keeps the last valid pod when its file turns invalid, and reports the error once', async () => {
    const file = join(dir, 'web.yaml');
    await writeFile(file, podYaml('web'));
    const src = start();
    const first = await src.first();
    const uid = first.kind === 'set' ? first.pods[0]?.metadata.uid : undefined;

    await writeFile(file, podYaml('web', 'nginx', 'Bad_Name'));
    const second = await src.relist();
    expect(second.kind === 'set' && second.pods.map((p) => p.metadata.uid)).toEqual([uid]);
    expect(errorsOf(src.events)).toEqual([expect.objectContaining({ source: 'file', file, path: 'spec.containers[0].name' })]);
    expect(src.logger.find('Invalid static pod manifest')[0]?.fields.keptLastValid).toBe(true);

    await src.relist();
    expect(errorsOf(src.events)).toHaveLength(1);

    // Fixed: a new manifest gives a new UID.
    await writeFile(file, podYaml('web', 'nginx:1.26'));
    const fixed = await src.relist();
    const fixedUid = fixed.kind === 'set' ? fixed.pods[0]?.metadata.uid : undefined;
    expect(fixedUid).toBeDefined();
    expect(fixedUid).not.toBe(uid);
  });

  it('produces no pod for a file that was never valid, and drops the pod of a deleted file', async () => {
    await writeFile(join(dir, 'a.yaml'), podYaml('a'));
    await writeFile(join(dir, 'never.yaml'), 'kind: Pod\n');
    const src = start();
    expect(names(await src.first())).toEqual(['a-node-a']);
    await unlink(join(dir, 'a.yaml'));
    expect(names(await src.relist())).toEqual([]);
  });

  it('treats a missing directory as empty and picks it up once it exists', async () => {
    const missing = join(dir, 'manifests');
    const src = start(missing);
    expect(names(await src.first())).toEqual([]);
    expect(src.logger.find('does not exist')).toHaveLength(1);
    await mkdir(missing);
    await writeFile(join(missing, 'a.yaml'), podYaml('a'));
    expect(names(await src.relist())).toEqual(['a-node-a']);
  });

  it('accepts a single manifest file as the path', async () => {
    const file = join(dir, 'only.yaml');
    await writeFile(file, podYaml('only'));
    await writeFile(join(dir, 'other.yaml'), podYaml('other'));
    const src = start(file);
    expect(names(await src.first())).toEqual(['only-node-a']);
  });

  it('rejects files over the size limit', async () => {
    await writeFile(join(dir, 'big.yaml'), `${podYaml('big')}# ${'x'.repeat(2000)}\n`);
    await writeFile(join(dir, 'small.yaml'), podYaml('small'));
    const src = start(dir, { maxFileBytes: 1024 });
    expect(names(await src.first())).toEqual(['small-node-a']);
    expect(errorsOf(src.events)).toEqual([
      {
        source: 'file',
        file: join(dir, 'big.yaml'),
        path: '',
        reason: expect.stringMatching(/^manifest is \d+ bytes, over the limit of 1024 bytes$/),
      },
    ]);
  });

  it('keeps the first file when two files define the same pod name', async () => {
    await writeFile(join(dir, 'a.yaml'), podYaml('web'));
    await writeFile(join(dir, 'b.yaml'), podYaml('web', 'nginx:2'));
    const src = start();
    const first = await src.first();
    expect(first.kind === 'set' && first.pods.map((p) => p.spec.containers[0]?.image)).toEqual(['nginx:1.25']);
    expect(errorsOf(src.events)).toEqual([
      {
        source: 'file',
        file: join(dir, 'b.yaml'),
        path: 'metadata.name',
        reason: `Duplicate value "web-node-a": pod already defined by ${join(dir, 'a.yaml')}`,
      },
    ]);
  });

  it('re-establishes the watch when the directory is replaced', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    const clock = new FakeClock();
    const run = runSource(createFileSource({ path: manifests, nodeName: 'node-a', clock, checkFrequencyMs: 60_000, watchDebounceMs: 10 }));
    stops.push(run.stop);
    /** Lets real fs events arrive and fake debounce timers fire until `probe` holds. */
    const until = async (probe: () => boolean, what: string): Promise<void> => {
      const deadline = Date.now() + 5000;
      while (!probe()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        await clock.advance(10);
      }
    };
    await until(() => run.sets().length > 0, 'first set');

    await rm(manifests, { recursive: true });
    await mkdir(manifests);
    // The old watch died with the old directory; the periodic relist finds the new one and watches it.
    await clock.advance(60_000);
    await until(() => run.sets().length > 1, 'relist');
    const before = run.sets().length;
    await writeFile(join(manifests, 'web.yaml'), podYaml('web'));
    await until(() => names(run.sets().at(-1)).includes('web-node-a'), 'pod seen through the new watch');
    // Seen without another periodic relist: only fs.watch can have triggered it.
    expect(run.sets().length).toBeGreaterThan(before);
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeLessThan(120_000);
  });

  it('notices changes through fs.watch without waiting for the relist period', async () => {
    const logger = new RecordingLogger();
    const run = runSource(createFileSource({ path: dir, nodeName: 'node-a', logger, checkFrequencyMs: 3_600_000, watchDebounceMs: 20 }));
    stops.push(run.stop);
    expect(names(await eventually(() => run.sets()[0]))).toEqual([]);
    // Write atomically, as editors and config management do: temp dotfile, then rename.
    await writeFile(join(dir, '.web.yaml.tmp'), podYaml('web'));
    await rename(join(dir, '.web.yaml.tmp'), join(dir, 'web.yaml'));
    await eventually(() => (names(run.sets().at(-1)).includes('web-node-a') ? true : undefined), 5000, 'pod from watch');
    await unlink(join(dir, 'web.yaml'));
    await eventually(() => (names(run.sets().at(-1)).length === 0 ? true : undefined), 5000, 'removal from watch');
  });

  it('acts on the first watch event at once, without waiting for the coalescing window', async () => {
    // A fake clock that is never advanced: the window's timer never fires, so only the leading edge can deliver the pod.
    const clock = new FakeClock();
    const run = runSource(createFileSource({ path: dir, nodeName: 'node-a', clock, checkFrequencyMs: 3_600_000, watchDebounceMs: 60_000 }));
    stops.push(run.stop);
    expect(names(await eventually(() => run.sets()[0]))).toEqual([]);
    await writeFile(join(dir, '.fast.yaml.tmp'), podYaml('fast'));
    await rename(join(dir, '.fast.yaml.tmp'), join(dir, 'fast.yaml'));
    await eventually(() => (names(run.sets().at(-1)).includes('fast-node-a') ? true : undefined), 5000, 'pod from the first event');
  });

  describe('reads only what changed', () => {
    /** The real file system, recording every stat and manifest read by path. */
    const countingFs = () => {
      const reads: string[] = [];
      const stats: string[] = [];
      const fs: ManifestFs = {
        stat: async (p) => {
          stats.push(p);
          return nodeManifestFs.stat(p);
        },
        readdir: (p) => nodeManifestFs.readdir(p),
        readManifest: async (file, max) => {
          reads.push(file);
          return nodeManifestFs.readManifest(file, max);
        },
      };
      return { fs, reads, stats };
    };
    const readsOf = (list: string[], file: string): number => list.filter((f) => f === file).length;
    /** Writes a file dated a minute ago: a file modified within the last 2 s is not cached yet ("racy" stamp). */
    const writeOld = async (file: string, text: string, ageMs = 60_000): Promise<void> => {
      await writeFile(file, text);
      const when = new Date(Date.now() - ageMs);
      await utimes(file, when, when);
    };

    const startCounting = (watch: boolean) => {
      const counting = countingFs();
      const clock = new FakeClock();
      const run = runSource(
        createFileSourceWithFs({ path: dir, nodeName: 'node-a', clock, watch, checkFrequencyMs: 20_000, watchDebounceMs: 10 }, counting.fs),
      );
      stops.push(run.stop);
      const relist = async (): Promise<SourceEvent> => {
        const before = run.sets().length;
        await clock.advance(20_000);
        return eventually(() => run.sets()[before], 5000, 'relist');
      };
      return { ...run, ...counting, clock, relist };
    };

    it('does not read or parse an unchanged file again on relist', async () => {
      const a = join(dir, 'a.yaml');
      const b = join(dir, 'b.yaml');
      await writeOld(a, podYaml('a'));
      await writeOld(b, podYaml('b'));
      const src = startCounting(false);
      expect(names(await eventually(() => src.sets()[0]))).toEqual(['a-node-a', 'b-node-a']);
      await writeOld(b, podYaml('b', 'nginx:2'), 30_000);
      expect(names(await src.relist())).toEqual(['a-node-a', 'b-node-a']);
      expect(names(await src.relist())).toEqual(['a-node-a', 'b-node-a']);
      expect(readsOf(src.reads, a)).toBe(1);
      expect(readsOf(src.reads, b)).toBe(2);
    });

    it('reads a file again when only its mtime changed (same size, same inode)', async () => {
      const file = join(dir, 'web.yaml');
      await writeOld(file, podYaml('web', 'nginx:1.25'));
      const src = startCounting(false);
      const first = await eventually(() => src.sets()[0]);
      const before = await stat(file);
      await writeOld(file, podYaml('web', 'nginx:1.26'), 30_000);
      const after = await stat(file);
      expect([after.ino, after.size]).toEqual([before.ino, before.size]);
      const second = await src.relist();
      expect(readsOf(src.reads, file)).toBe(2);
      expect(second.kind === 'set' && second.pods[0]?.spec.containers[0]?.image).toBe('nginx:1.26');
      expect(second.kind === 'set' && second.pods[0]?.metadata.uid).not.toBe(first.kind === 'set' && first.pods[0]?.metadata.uid);
    });

    it('does not trust the stamp of a file modified a moment ago (coarse timestamps)', async () => {
      const file = join(dir, 'web.yaml');
      await writeFile(file, podYaml('web'));
      const src = startCounting(false);
      await eventually(() => src.sets()[0]);
      await src.relist();
      expect(readsOf(src.reads, file)).toBe(2);
      const old = new Date(Date.now() - 60_000);
      await utimes(file, old, old);
      await src.relist();
      await src.relist();
      expect(readsOf(src.reads, file)).toBe(3);
    });

    it('handles a watch event for one file without reading or listing the others', async () => {
      const others = ['a.yaml', 'b.yaml', 'c.yaml'].map((n) => join(dir, n));
      for (const [i, f] of others.entries()) await writeOld(f, podYaml(`p${i}`));
      const src = startCounting(true);
      expect(names(await eventually(() => src.sets()[0]))).toHaveLength(3);
      const statsBefore = src.stats.length;
      const readsBefore = src.reads.length;
      const web = join(dir, 'web.yaml');
      await writeFile(join(dir, '.web.yaml.tmp'), podYaml('web'));
      await rename(join(dir, '.web.yaml.tmp'), web);
      // Real fs events, fake coalescing window: advance the fake clock until the pod shows up.
      const deadline = Date.now() + 5000;
      while (!names(src.sets().at(-1)).includes('web-node-a')) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the pod from the watch');
        await new Promise((resolve) => setTimeout(resolve, 10));
        await src.clock.advance(10);
      }
      expect(names(src.sets().at(-1))).toEqual(['p0-node-a', 'p1-node-a', 'p2-node-a', 'web-node-a']);
      // No periodic relist happened; only web.yaml (and the directory, to check it is the same one) was looked at.
      expect(src.clock.now() - Date.UTC(2026, 0, 1)).toBeLessThan(20_000);
      expect(src.reads.slice(readsBefore).every((f) => f === web)).toBe(true);
      expect(src.stats.slice(statsBefore).filter((p) => others.includes(p))).toEqual([]);
    });
  });

  it('parses JSON manifests, falling back to YAML for JSON-looking YAML', async () => {
    await writeFile(
      join(dir, 'a.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'x:1' }] } }),
    );
    // Flow-style YAML that is not JSON (unquoted keys): still accepted through the YAML parser.
    await writeFile(
      join(dir, 'b.yaml'),
      '{apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: [{name: c, image: "x:1"}]}}\n',
    );
    const src = start();
    expect(names(await src.first())).toEqual(['a-node-a', 'b-node-a']);
    expect(errorsOf(src.events)).toEqual([]);
  });

  // Found by the file source fuzzer (see the HTTP source's test of the same fix).
  it('reads a UTF-16 manifest by its byte order mark and names a file that is not valid UTF-8', async () => {
    await writeFile(join(dir, 'be.yaml'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(podYaml('be'), 'utf16le').swap16()]));
    await writeFile(join(dir, 'le.yaml'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(podYaml('le'), 'utf16le')]));
    await writeFile(join(dir, 'latin1.yaml'), Buffer.from(podYaml('caf\u00e9'), 'latin1'));
    const src = start();
    expect(names(await src.first())).toEqual(['be-node-a', 'le-node-a']);
    expect(errorsOf(src.events)).toEqual([{ source: 'file', file: join(dir, 'latin1.yaml'), path: '', reason: 'not valid UTF-8' }]);
  });
});
