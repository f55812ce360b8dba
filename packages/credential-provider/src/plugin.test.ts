import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { METRIC_PLUGIN_DURATION, METRIC_PLUGIN_ERRORS } from './constants.js';
import { createCredentialProviderPlugin } from './plugin.js';
import type { CredentialProviderSpec } from './plugin-config.js';
import { FakePluginRunner } from './testing/index.js';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const spec = (overrides: Partial<CredentialProviderSpec> = {}): CredentialProviderSpec => ({
  name: 'acme-provider',
  matchImages: ['*.acme.io', 'registry.other.io:5000'],
  defaultCacheDurationMs: 0,
  apiVersion: V1,
  args: ['--region', 'eu'],
  env: [{ name: 'HOME', value: '/plugin-home' }],
  ...overrides,
});
const response = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'CredentialProviderResponse',
  apiVersion: V1,
  cacheKeyType: 'Image',
  auth: { '*.acme.io': { username: 'robot', password: 'token' } },
  ...fields,
});

function setup(options: { spec?: Partial<CredentialProviderSpec>; timeoutMs?: number } = {}) {
  const clock = new FakeClock();
  const runner = new FakePluginRunner().respondWith(response());
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const plugin = createCredentialProviderPlugin({
    spec: spec(options.spec),
    binDir: '/usr/libexec/kubelet-plugins',
    runner,
    clock,
    logger,
    metrics,
    environ: () => ({ PATH: '/usr/bin', HOME: '/root' }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return { clock, runner, logger, metrics, plugin };
}

describe('exec credential provider plugin (upstream pluginProvider)', () => {
  it('runs the binary with its args, the kubelet env overlaid with the provider env, and a CredentialProviderRequest on stdin', async () => {
    const { runner, plugin, metrics } = setup();
    const config = await plugin.provide('eu.acme.io/team/app');
    expect([...config]).toEqual([['*.acme.io', { username: 'robot', password: 'token', email: '' }]]);
    expect(runner.calls).toHaveLength(1);
    expect(runner.calls[0]).toMatchObject({
      command: '/usr/libexec/kubelet-plugins/acme-provider',
      args: ['--region', 'eu'],
      env: { PATH: '/usr/bin', HOME: '/plugin-home' },
      stdin: `{"kind":"CredentialProviderRequest","apiVersion":"${V1}","image":"eu.acme.io/team/app"}\n`,
    });
    expect(metrics.observations(METRIC_PLUGIN_DURATION, { plugin_name: 'acme-provider' })).toHaveLength(1);
  });

  it('is not run for an image its matchImages do not allow', async () => {
    const { runner, plugin } = setup();
    expect((await plugin.provide('registry.other.io/app')).size).toBe(0); // port 5000 required
    expect((await plugin.provide('a.b.acme.io/app')).size).toBe(0);
    expect(runner.calls).toHaveLength(0);
    await plugin.provide('registry.other.io:5000/app');
    expect(runner.calls).toHaveLength(1);
  });

  it('caches an Image response for that image only, until cacheDuration passes', async () => {
    const { clock, runner, plugin } = setup();
    runner.respondWith(response({ cacheKeyType: 'Image', cacheDuration: '1m' }));
    await plugin.provide('eu.acme.io/app');
    await plugin.provide('eu.acme.io/app');
    await plugin.provide('eu.acme.io/other');
    expect(runner.calls.map((c) => (c.request as { image: string }).image)).toEqual(['eu.acme.io/app', 'eu.acme.io/other']);
    await clock.advance(60_000);
    await plugin.provide('eu.acme.io/app'); // expiry is "after expiresAt": still cached at exactly 1m
    expect(runner.calls).toHaveLength(2);
    await clock.advance(1);
    await plugin.provide('eu.acme.io/app');
    expect(runner.calls).toHaveLength(3);
  });

  it('caches a Registry response for every image of the registry, a Global one for every image', async () => {
    const registry = setup();
    registry.runner.respondWith(response({ cacheKeyType: 'Registry', cacheDuration: '10m' }));
    await registry.plugin.provide('eu.acme.io/app');
    await registry.plugin.provide('eu.acme.io/other');
    await registry.plugin.provide('us.acme.io/app');
    expect(registry.runner.calls.map((c) => (c.request as { image: string }).image)).toEqual(['eu.acme.io/app', 'us.acme.io/app']);

    const global = setup();
    global.runner.respondWith(response({ cacheKeyType: 'Global', cacheDuration: '10m' }));
    await global.plugin.provide('eu.acme.io/app');
    await global.plugin.provide('us.acme.io/app');
    expect(global.runner.calls).toHaveLength(1);
  });

  it('uses defaultCacheDuration without a cacheDuration, and caches nothing for an explicit 0s or a 0 default', async () => {
    const withDefault = setup({ spec: { defaultCacheDurationMs: 30_000 } });
    await withDefault.plugin.provide('eu.acme.io/app');
    await withDefault.clock.advance(30_000);
    await withDefault.plugin.provide('eu.acme.io/app');
    expect(withDefault.runner.calls).toHaveLength(1);
    await withDefault.clock.advance(1);
    await withDefault.plugin.provide('eu.acme.io/app');
    expect(withDefault.runner.calls).toHaveLength(2);

    const explicitZero = setup({ spec: { defaultCacheDurationMs: 30_000 } });
    explicitZero.runner.respondWith(response({ cacheDuration: '0s' }));
    await explicitZero.plugin.provide('eu.acme.io/app');
    await explicitZero.plugin.provide('eu.acme.io/app');
    expect(explicitZero.runner.calls).toHaveLength(2);

    const zeroDefault = setup();
    await zeroDefault.plugin.provide('eu.acme.io/app');
    await zeroDefault.plugin.provide('eu.acme.io/app');
    expect(zeroDefault.runner.calls).toHaveLength(2);
  });

  it('shares one run between concurrent requests for the same image', async () => {
    const { runner, plugin } = setup();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = runner.run.bind(runner);
    runner.run = async (request) => {
      const result = run(request);
      await gate;
      return result;
    };
    const pending = [plugin.provide('eu.acme.io/app'), plugin.provide('eu.acme.io/app'), plugin.provide('eu.acme.io/other')];
    release();
    const configs = await Promise.all(pending);
    expect(runner.calls.map((c) => (c.request as { image: string }).image)).toEqual(['eu.acme.io/app', 'eu.acme.io/other']);
    expect(configs.map((c) => c.get('*.acme.io')?.username)).toEqual(['robot', 'robot', 'robot']);
  });

  it('gives up on a plugin that runs past its one minute timeout, with upstream’s message', async () => {
    const { clock, runner, plugin, logger, metrics } = setup();
    runner.reply = () => 'hang';
    const pending = plugin.provide('eu.acme.io/app');
    await clock.advance(59_999);
    let settled = false;
    void pending.then(() => (settled = true));
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect((await pending).size).toBe(0);
    expect(logger.find('Failed getting credential from external registry credential provider')[0]?.fields).toMatchObject({
      plugin: 'acme-provider',
      err: 'error execing credential provider plugin acme-provider for image eu.acme.io/app: context deadline exceeded: ',
    });
    expect(metrics.value(METRIC_PLUGIN_ERRORS, { plugin_name: 'acme-provider' })).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('reports a failed run with its exit status and stderr, and caches nothing', async () => {
    const { runner, plugin, logger } = setup({ spec: { defaultCacheDurationMs: 60_000 } });
    runner.reply = () => ({ exitCode: 3, stderr: 'no role for node' });
    expect((await plugin.provide('eu.acme.io/app')).size).toBe(0);
    await plugin.provide('eu.acme.io/app');
    expect(runner.calls).toHaveLength(2);
    expect(logger.find('Failed getting credential')[0]?.fields['err']).toBe(
      'error execing credential provider plugin acme-provider for image eu.acme.io/app: exit status 3: no role for node',
    );
  });

  it.each([
    ['not JSON', 'Bearer abc', /^error reading GVK from response: /],
    [
      'another apiVersion',
      JSON.stringify(response({ apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1' })),
      /did not match expected apiVersion:credentialprovider\.kubelet\.k8s\.io\/v1, actual apiVersion:credentialprovider\.kubelet\.k8s\.io\/v1beta1$/,
    ],
    ['an unknown field', JSON.stringify(response({ token: 'secret' })), /^error decoding credential provider plugin response from stdout$/],
    [
      'another kind',
      JSON.stringify(response({ kind: 'CredentialProviderRequest' })),
      /^error decoding credential provider plugin response from stdout$/,
    ],
    [
      'a bad cacheDuration',
      JSON.stringify(response({ cacheDuration: 'soon' })),
      /^error decoding credential provider plugin response from stdout$/,
    ],
  ])('gives no credentials for output that is %s', async (_what, stdout, message) => {
    const { runner, plugin, logger } = setup();
    runner.reply = () => ({ stdout });
    expect((await plugin.provide('eu.acme.io/app')).size).toBe(0);
    const err = String(logger.find('Failed getting credential')[0]?.fields['err']);
    expect(err).toMatch(message);
    expect(err).not.toContain('secret');
  });

  it('gives no credentials, and caches nothing, for an invalid cacheKeyType', async () => {
    const { runner, plugin, logger } = setup({ spec: { defaultCacheDurationMs: 60_000 } });
    runner.respondWith(response({ cacheKeyType: 'Pod' }));
    expect((await plugin.provide('eu.acme.io/app')).size).toBe(0);
    await plugin.provide('eu.acme.io/app');
    expect(runner.calls).toHaveLength(2);
    expect(logger.find('did not return a valid cacheKeyType')[0]?.fields['cacheKeyType']).toBe('Pod');
  });

  it('reports a runner that cannot start the binary', async () => {
    const { runner, plugin, logger } = setup();
    runner.reply = () => Object.assign(new Error('spawn /usr/libexec/kubelet-plugins/acme-provider EACCES'), { code: 'EACCES' });
    expect((await plugin.provide('eu.acme.io/app')).size).toBe(0);
    expect(logger.find('Failed getting credential')[0]?.fields['err']).toBe(
      'error execing credential provider plugin acme-provider for image eu.acme.io/app: spawn /usr/libexec/kubelet-plugins/acme-provider EACCES: ',
    );
  });
});
