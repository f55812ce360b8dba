// Fuzzing of what an exec credential provider plugin prints: a CredentialProviderResponse with one
// spot changed, any JSON, garbage, huge output, a failed or killed process — through the fake runner,
// and random bytes through the real runner and a real process. The property: the lookup never throws,
// a bad plugin gives no credentials and is logged with its name and a reason, and a good plugin next to
// it still gives its credentials.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, hostileText, mutated } from '@kubelet-ts/test-support';
import { createCredentialProvider } from './credential-provider.js';
import { createExecPluginRunner } from './exec-runner.js';
import { createCredentialProviderPlugin } from './plugin.js';
import type { PluginExecResult } from './plugin.js';
import type { CredentialProviderSpec } from './plugin-config.js';
import { FakePluginRunner } from './testing/index.js';

const TIMEOUT_MS = fuzzRuns(30_000);
const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const IMAGE = 'registry.acme.io/team/app:1';
const spec = (name: string): CredentialProviderSpec => ({
  name,
  matchImages: ['*.acme.io'],
  defaultCacheDurationMs: 0,
  apiVersion: V1,
  args: [],
  env: [],
});
const validResponse = {
  kind: 'CredentialProviderResponse',
  apiVersion: V1,
  cacheKeyType: 'Image',
  cacheDuration: '5m',
  auth: { '*.acme.io': { username: 'junk-user', password: 'junk-pass' } },
};

/** JSON text of a value; mutated() nests some 50 000 deep, past what JSON.stringify recurses into. */
function toJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
  }
}

function setup(junkRunner: FakePluginRunner | ReturnType<typeof createExecPluginRunner>, binDir = '/usr/libexec/kubelet-plugins') {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const good = new FakePluginRunner().respondWith({
    ...validResponse,
    cacheDuration: '0s',
    auth: { 'registry.acme.io': { username: 'good-user', password: 'good-pass' } },
  });
  const plugins = [
    createCredentialProviderPlugin({ spec: spec('junk-provider'), binDir, runner: junkRunner, clock, logger, environ: () => ({}) }),
    createCredentialProviderPlugin({ spec: spec('good-provider'), binDir, runner: good, clock, logger, environ: () => ({}) }),
  ];
  return { logger, provider: createCredentialProvider({ nodeDockerConfig: null, plugins, logger }) };
}

type Output = Partial<PluginExecResult>;

describe('fuzzing exec credential provider plugin output', () => {
  it(
    'gives the good plugin’s credentials, and none from a plugin whose output is junk (logged with its name)',
    async () => {
      const stdout = fc.oneof(
        mutated(validResponse).map(toJson),
        fc.jsonValue({ maxDepth: 4 }).map(toJson),
        hostileText(),
        fc
          .integer({ min: 1, max: 8 * 1024 * 1024 })
          .map((n) => `{"kind":"CredentialProviderResponse","apiVersion":"${V1}","x":"${'y'.repeat(n)}"}`),
        fc.constantFrom(
          '',
          '\0',
          'null',
          `${toJson(validResponse)}\n${toJson(validResponse)}`,
          toJson({ ...validResponse, auth: { '%zz': {} } }),
        ),
      );
      const output: fc.Arbitrary<Output> = fc.record({
        stdout,
        stderr: fc.oneof(fc.constant(''), fc.string({ maxLength: 100 })),
        exitCode: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 255 }), fc.constant(null)),
        signal: fc.oneof(fc.constant(null), fc.constant(null), fc.constant(null), fc.constantFrom('SIGKILL', 'SIGSEGV')),
      });
      await fuzz(
        'credential-provider: exec plugin stdout (CredentialProviderResponse)',
        output,
        async (out) => {
          const junk = new FakePluginRunner();
          junk.reply = () => out;
          const { logger, provider } = setup(junk);
          const { credentials } = await provider.lookup(IMAGE);
          const fromGood = credentials.filter((c) => c.source.kind === 'plugin' && c.source.name === 'good-provider');
          expect(fromGood.map((c) => c.auth)).toEqual([{ username: 'good-user', password: 'good-pass' }]);
          const fromJunk = credentials.filter((c) => c.source.kind === 'plugin' && c.source.name === 'junk-provider');
          const failure = logger.records.find((r) => r.level === 'error' && r.fields['plugin'] === 'junk-provider');
          if (fromJunk.length === 0 && out.exitCode === 0 && out.signal === null) {
            // A response that gave nothing is a valid one with no usable entry, or a logged failure.
            // (an invalid cacheKeyType, '' included, is logged with the value as upstream does, without `err`).
            if (failure !== undefined) expect('err' in failure.fields || 'cacheKeyType' in failure.fields).toBe(true);
          }
          if (out.exitCode !== 0 || out.signal !== null) {
            expect(fromJunk).toEqual([]);
            expect(String(failure?.fields['err'])).toContain('error execing credential provider plugin junk-provider');
          }
          // What the log says of a failure never quotes the response (it may hold credentials).
          for (const r of logger.records) expect(JSON.stringify(r.fields)).not.toContain('junk-pass');
        },
        { runs: 150 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'survives a real plugin process printing random bytes or a lot of output',
    async () => {
      const binDir = await mkdtemp(join(os.tmpdir(), 'cp-fuzz-'));
      try {
        const script = join(binDir, 'junk-provider');
        // Reads the request, then prints what the case asks: N random bytes, or N copies of a line.
        await writeFile(
          script,
          '#!/bin/sh\ncat >/dev/null\nif [ "$MODE" = random ]; then head -c "$N" /dev/urandom; else yes "$LINE" | head -c "$N"; fi\nexit "$CODE"\n',
        );
        await chmod(script, 0o755);
        const runner = createExecPluginRunner();
        await fuzz(
          'credential-provider: exec plugin process output (real process)',
          fc.record({
            mode: fc.constantFrom('random', 'line'),
            n: fc.oneof(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: 1, max: 16 * 1024 * 1024 })),
            line: fc.constantFrom('{', toJson(validResponse), 'x'),
            code: fc.constantFrom(0, 0, 1),
          }),
          async ({ mode, n, line, code }) => {
            const env = { MODE: mode, N: String(n), LINE: line, CODE: String(code), PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
            const clock = new FakeClock();
            const logger = new RecordingLogger();
            const plugin = createCredentialProviderPlugin({
              spec: spec('junk-provider'),
              binDir,
              runner,
              clock,
              logger,
              environ: () => env,
            });
            const config = await plugin.provide(IMAGE);
            if (code !== 0) expect(config.size).toBe(0);
            const failure = logger.records.find((r) => r.level === 'error');
            if (failure !== undefined) expect(failure.fields['plugin']).toBe('junk-provider');
          },
          { runs: 6 },
        );
      } finally {
        await rm(binDir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
