import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KUBELET_FLAGS } from '@kubelet-ts/config';
import { fc, fuzz, fuzzRuns, hostileText } from '@kubelet-ts/test-support';
import { loadOptionsOrExit } from './cli.js';
import type { CliIO } from './cli.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function captureIO(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
    exit: (code: number): never => {
      throw new Exit(code);
    },
  };
  return io;
}

const HOSTILE_VALUES = [
  '',
  '-1',
  '1e400',
  '0x10',
  'NaN',
  '99999999999999999999',
  'a=b,=c',
  'memory.available<',
  'Foo=maybe',
  '1h1h',
  '1.5.5Gi',
];

describe('kubelet command line (fuzz)', () => {
  let dir: string;
  let config: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-cli-fuzz-'));
    config = path.join(dir, 'config.yaml');
    await fs.writeFile(
      config,
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: /etc/kubernetes/manifests\n',
    );
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('starts, prints help or version, or exits 1 listing every problem with its flag or file', async () => {
    // Flags that read files are pointed at the temp dir so no case reads the host's files.
    const safe = KUBELET_FLAGS.filter((s) => s.name !== 'config' && s.name !== 'config-dir');
    const arg = fc.oneof(
      fc
        .tuple(
          fc.constantFrom(...safe),
          fc.oneof(
            fc.constantFrom(...HOSTILE_VALUES),
            hostileText().map((t) => t.slice(0, 1_000)),
          ),
        )
        .map(([spec, value]) => [`--${spec.name}=${value}`]),
      fc.constantFrom(...safe).map((spec) => [`--${spec.name}`]),
      fc.string({ maxLength: 10 }).map((name) => [`--${name}`]),
      fc.constantFrom([`--config=${config}`], [`--config=${path.join(dir, 'missing.yaml')}`], [`--config-dir=${dir}`], ['-v', '3'], ['--']),
    );
    await fuzz(
      'kubelet: command line (flags and --config)',
      fc.array(arg, { maxLength: 8 }).map((parts) => parts.flat()),
      async (argv) => {
        const io = captureIO();
        let code: number | undefined;
        try {
          await loadOptionsOrExit(argv, io);
        } catch (err) {
          if (!(err instanceof Exit)) throw err;
          code = err.code;
        }
        if (code === undefined) return;
        if (code === 0) {
          expect(io.stdout).toMatch(/^(Kubernetes v|kubelet-ts: the kubelet)/);
          return;
        }
        expect(code).toBe(1);
        const problems = io.stderr.split('\n').filter((l) => l.startsWith('E kubelet: invalid configuration: '));
        expect(problems.length).toBeGreaterThan(0);
        // Every problem says where: a flag, the command line, a file, or the merged result ("defaults").
        for (const p of problems) {
          expect(p.slice('E kubelet: invalid configuration: '.length)).toMatch(
            /^(flag (--?[\x21-\x7e]+|"(?:[^"\\]|\\.)*")|command line|\/\S*|defaults|flags): \S/,
          );
        }
        expect(io.stderr).toMatch(/kubelet-ts: \d+ configuration error\(s\); see --help\n$/);
        // No value or name typed on the command line splits or forges a line of the report.
        for (const l of io.stderr.slice(0, -1).split('\n'))
          expect(l).toMatch(/^(E kubelet: invalid configuration: |W kubelet: |kubelet-ts: \d+ configuration error)/);
      },
      { runs: 150 },
    );
  });
});
