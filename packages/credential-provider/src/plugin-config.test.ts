import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialProviderError } from './errors.js';
import { loadCredentialProviderConfig, parseCredentialProviderConfig } from './plugin-config.js';

const FILE = '/etc/kubernetes/credential-providers.yaml';

function issuesOf(text: string): string[] {
  try {
    parseCredentialProviderConfig(text, FILE);
  } catch (err) {
    expect(CredentialProviderError.is(err, 'INVALID_CONFIG')).toBe(true);
    const error = err as CredentialProviderError;
    for (const issue of error.issues) expect(issue.source).toBe(FILE);
    return error.issues.map((i) => (i.path === '' ? i.reason : `${i.path}: ${i.reason}`));
  }
  throw new Error('no error');
}

const provider = (fields: string): string => `apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - ${fields}`;

describe('parseCredentialProviderConfig (upstream readCredentialProviderConfigFile + validation)', () => {
  it('reads a v1 YAML config with args, env and durations', () => {
    const config = parseCredentialProviderConfig(
      `apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - name: ecr-credential-provider
    matchImages: ["*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn"]
    defaultCacheDuration: 12h
    apiVersion: credentialprovider.kubelet.k8s.io/v1
    args: [get-credentials]
    env:
      - name: AWS_PROFILE
        value: node
`,
      FILE,
    );
    expect(config).toEqual({
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name: 'ecr-credential-provider',
          matchImages: ['*.dkr.ecr.*.amazonaws.com', '*.dkr.ecr.*.amazonaws.com.cn'],
          defaultCacheDurationMs: 12 * 3_600_000,
          apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
          args: ['get-credentials'],
          env: [{ name: 'AWS_PROFILE', value: 'node' }],
        },
      ],
    });
  });

  it('reads JSON and the v1beta1 and v1alpha1 config versions', () => {
    for (const version of ['v1beta1', 'v1alpha1']) {
      const json = JSON.stringify({
        apiVersion: `kubelet.config.k8s.io/${version}`,
        kind: 'CredentialProviderConfig',
        providers: [
          {
            name: 'p',
            matchImages: ['registry.io'],
            defaultCacheDuration: '0s',
            apiVersion: `credentialprovider.kubelet.k8s.io/${version}`,
          },
        ],
      });
      expect(parseCredentialProviderConfig(json, FILE).providers[0]).toMatchObject({ defaultCacheDurationMs: 0, args: [], env: [] });
    }
  });

  it('reports every validation issue with its field path, in upstream words', () => {
    expect(
      issuesOf(`apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - name: a/b c
    matchImages: []
    apiVersion: credentialprovider.kubelet.k8s.io/v2
  - name: ..
    matchImages: ["registry.io:port"]
    defaultCacheDuration: -1m
  - name: ..
    matchImages: [registry.io]
    defaultCacheDuration: 1m
    apiVersion: credentialprovider.kubelet.k8s.io/v1
    tokenAttributes: {serviceAccountTokenAudience: sts.amazonaws.com}
`),
    ).toEqual([
      `providers[0].name: Invalid value: "a/b c": provider name cannot contain '/'`,
      'providers[0].name: Invalid value: "a/b c": provider name cannot contain spaces',
      'providers[0].apiVersion: Unsupported value: "credentialprovider.kubelet.k8s.io/v2": supported values: "credentialprovider.kubelet.k8s.io/v1", "credentialprovider.kubelet.k8s.io/v1alpha1", "credentialprovider.kubelet.k8s.io/v1beta1"',
      'providers[0].matchImages: Required value: at least 1 item in matchImages is required',
      'providers[0].defaultCacheDuration: Required value',
      `providers[1].name: Invalid value: "..": provider name cannot be '..'`,
      'providers[1].apiVersion: Required value',
      'providers[1].matchImages: Invalid value: "registry.io:port": match image is invalid: parse "https://registry.io:port": invalid port ":port" after host',
      'providers[1].defaultCacheDuration: Invalid value: "-1m": must be greater than or equal to 0',
      `providers[2].name: Invalid value: "..": provider name cannot be '..'`,
      'providers[2].name: Duplicate value: ".."',
      'providers[2].tokenAttributes: Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled',
    ]);
    expect(issuesOf('apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\n')).toEqual([
      'providers: Required value: at least 1 item in plugins is required',
    ]);
  });

  it('decodes strictly: unknown fields, wrong types, bad durations, kind and version are errors', () => {
    expect(
      issuesOf(
        provider('{name: p, matchImages: [r.io], defaultCacheDuration: 1m, apiVersion: credentialprovider.kubelet.k8s.io/v1, argz: [x]}'),
      ),
    ).toEqual(['providers[0].argz: strict decoding error: unknown field']);
    expect(issuesOf(provider('{name: 7, matchImages: r.io, defaultCacheDuration: 1x}'))).toEqual([
      'providers[0].name: cannot decode number as string',
      'providers[0].matchImages: cannot decode string as array',
      'providers[0].defaultCacheDuration: time: unknown unit "x" in duration "1x"',
    ]);
    expect(issuesOf('kind: CredentialProviderConfig\napiVersion: kubelet.config.k8s.io/v2\n')).toEqual([
      'apiVersion: no kind "CredentialProviderConfig" is registered for version "kubelet.config.k8s.io/v2"',
    ]);
    expect(issuesOf('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')).toEqual([
      'kind: failed to decode "KubeletConfiguration" (wrong Kind)',
    ]);
    expect(issuesOf('apiVersion: kubelet.config.k8s.io/v1\n')).toEqual(["kind: Object 'Kind' is missing"]);
    expect(issuesOf('kind: a\nkind: b\n')[0]).toMatch(/^invalid YAML\/JSON: /);
  });

  it('names the file in the error message', () => {
    expect(() => parseCredentialProviderConfig('apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\n', FILE)).toThrow(
      `failed to validate credential provider config:\n  ${FILE}: providers: Required value: at least 1 item in plugins is required`,
    );
  });
});

describe('loadCredentialProviderConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'credential-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file, and names an unreadable one', async () => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'kubelet.config.k8s.io/v1',
        kind: 'CredentialProviderConfig',
        providers: [{ name: 'p', matchImages: ['r.io'], defaultCacheDuration: '5m', apiVersion: 'credentialprovider.kubelet.k8s.io/v1' }],
      }),
    );
    expect((await loadCredentialProviderConfig(file)).providers.map((p) => p.name)).toEqual(['p']);
    await expect(loadCredentialProviderConfig(join(dir, 'missing.yaml'))).rejects.toThrow(
      `unable to read external registry credential provider configuration from "${join(dir, 'missing.yaml')}": ENOENT`,
    );
    await expect(loadCredentialProviderConfig('')).rejects.toThrow('credential provider config path is empty');
  });
});
