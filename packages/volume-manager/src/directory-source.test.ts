import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDirectoryObjectSource } from './directory-source.js';
import type { VolumeError } from './errors.js';
import { makeTempDir } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('vm-objects-');
});
afterEach(async () => {
  await tmp.cleanup();
});

describe('createDirectoryObjectSource', () => {
  it('reads ConfigMaps and Secrets from YAML (multi-document) and JSON manifests, and picks up edits', async () => {
    await writeFile(
      join(tmp.path, 'objects.yaml'),
      [
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: prod}\ndata: {a: "1"}\nbinaryData: {b: AAEC}',
        'apiVersion: v1\nkind: Secret\nmetadata: {name: db}\ntype: kubernetes.io/basic-auth\ndata: {password: czNjcmV0}\nstringData: {user: admin}',
      ].join('\n---\n'),
    );
    await writeFile(
      join(tmp.path, 'other.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'json-cm' }, data: { x: 'y' } }),
    );
    await writeFile(join(tmp.path, 'ignored.txt'), 'not a manifest');
    const source = createDirectoryObjectSource({ dir: tmp.path });
    expect(await source.getConfigMap('prod', 'app')).toEqual({
      namespace: 'prod',
      name: 'app',
      data: { a: '1' },
      binaryData: { b: Buffer.from([0, 1, 2]) },
    });
    expect(await source.getConfigMap('default', 'app')).toBeUndefined();
    expect(await source.getConfigMap('default', 'json-cm')).toMatchObject({ data: { x: 'y' } });
    const secret = await source.getSecret('default', 'db');
    expect(secret?.type).toBe('kubernetes.io/basic-auth');
    expect(secret?.data.password?.toString()).toBe('s3cret');
    expect(secret?.data.user?.toString()).toBe('admin');

    await writeFile(
      join(tmp.path, 'other.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'json-cm' }, data: { x: 'z' } }),
    );
    expect(await source.getConfigMap('default', 'json-cm')).toMatchObject({ data: { x: 'z' } });
  });

  it('reports invalid documents with file, field path and reason, and keeps the valid ones', async () => {
    await writeFile(
      join(tmp.path, 'mixed.yaml'),
      [
        'apiVersion: v1\nkind: Secret\nmetadata: {name: bad}\ndata: {k: "not base64!"}',
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\ndata: {k: v}',
      ].join('\n---\n'),
    );
    await writeFile(join(tmp.path, 'noname.json'), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }));
    const invalid: VolumeError[] = [];
    const source = createDirectoryObjectSource({ dir: tmp.path, onInvalid: (e) => invalid.push(e) });
    expect(await source.getConfigMap('default', 'good')).toMatchObject({ data: { k: 'v' } });
    expect(await source.getSecret('default', 'bad')).toBeUndefined();
    expect(invalid.map((e) => e.message)).toEqual([
      `${join(tmp.path, 'mixed.yaml')} (document 1): data.k: must be base64`,
      expect.stringMatching(new RegExp(`^${join(tmp.path, 'noname.json')}: metadata\\.name: `)),
    ]);
    expect(invalid.every((e) => e.code === 'INVALID_OBJECT')).toBe(true);
  });
});

describe('createDirectoryObjectSource edge cases', () => {
  it('treats a missing directory as empty and picks up objects once it appears', async () => {
    const dir = join(tmp.path, 'later');
    const source = createDirectoryObjectSource({ dir });
    expect(await source.getConfigMap('default', 'cm')).toBeUndefined();
    await mkdir(dir);
    await writeFile(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {k: v}\n');
    expect(await source.getConfigMap('default', 'cm')).toMatchObject({ data: { k: 'v' } });
  });

  it('reports a second definition of the same object, naming both files, and keeps the first; ignores dot-files', async () => {
    await writeFile(join(tmp.path, 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {k: first}\n');
    await writeFile(join(tmp.path, 'b.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {k: second}\n');
    await writeFile(join(tmp.path, '.c.yaml.tmp'), 'not: [valid');
    const invalid: VolumeError[] = [];
    const source = createDirectoryObjectSource({ dir: tmp.path, onInvalid: (e) => invalid.push(e) });
    expect(await source.getConfigMap('default', 'cm')).toMatchObject({ data: { k: 'first' } });
    expect(invalid.map((e) => e.message)).toEqual([
      `${join(tmp.path, 'b.yaml')}: metadata.name: Duplicate value: ConfigMap default/cm is already defined in ${join(tmp.path, 'a.yaml')}`,
    ]);
    // Reported once per change of the directory, not on every get.
    await source.getConfigMap('default', 'cm');
    expect(invalid).toHaveLength(1);
  });
});
