import { fc, fuzz, fuzzRuns, hostileText } from '@kubelet-ts/test-support';
import type { FlagKind } from './flag-table.js';
import { KUBELET_FLAGS } from './flag-table.js';
import { parseKubeletArgs } from './flags.js';
import { loadKubeletConfiguration } from './load.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

/** Values that look like what each kind of flag takes, and what breaks them. */
const VALUES: Partial<Record<FlagKind, readonly string[]>> = {
  duration: ['1h2m3.5s', '-1s', '0', '1e400h', '9999999999999999h', '1.5.5s', 'h', '1µs', '1ns', '2562048h'],
  quantity: ['512', '2Ki', '1e400', '-1Mi', '1.5.5Gi', 'Ki', '0.000000001', '9223372036854775807Ei', '100m'],
  int32: ['2147483648', '-2147483649', '0x10', '1e3', '12abc', '-0', '0777'],
  int64: ['9223372036854775808', '-9223372036854775809', '1_000', '١٢٣'],
  float: ['NaN', 'Inf', '-Inf', '1e400', '0x1p-2', '.'],
  bool: ['true', 'false', 'TRUE', 't', '1', 'yes', ''],
  map: ['a=b,c=d', '=', 'a', 'a=b=c', ',,,', 'a=b,a=c', `k=${'v'.repeat(10_000)}`],
  langleMap: [
    'memory.available<100Mi',
    'memory.available<10%,nodefs.available<<1',
    '<',
    'x<1',
    'memory.available<',
    'memory.available<110%',
  ],
  mapBool: ['AllAlpha=true', 'Foo=maybe', '=true', 'A=true,,B=false', 'NoSuchGate=true', 'AllBeta=false,AllAlpha=true'],
  colonMultimap: ['a:b', 'a:b,a:c', ':', 'a', 'Authorization:Bearer x'],
  taints: ['k=v:NoSchedule', 'k:NoExecute', 'k=v:Bogus', '=:', 'a b=c:NoSchedule'],
  reservedMemory: ['0:memory=1Gi', '0:memory=1Gi,hugepages-1M=2Gi', 'x:memory=1', '0:', ':memory=1Gi', '-1:memory=1Gi'],
  vmodule: ['a=1', 'a=x', '=1', 'a*=2,b=3'],
  level: ['0', '10', '-1', '4294967296', 'x'],
  version: ['true', 'false', 'raw', 'v1.34.0', ''],
  stringSlice: ['a,b', ',', '', 'a,,b'],
};

const knownFlag = fc.constantFrom(...KUBELET_FLAGS);
const value = (kind: FlagKind): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...(VALUES[kind] ?? ['x'])), weight: 3 },
    { arbitrary: hostileText().map((t) => t.slice(0, 2_000)), weight: 1 },
    { arbitrary: fc.string({ maxLength: 20 }), weight: 1 },
  );

/** One argument or two: `--name=value`, `--name value`, `--name`, `-v4`, unknown flags, stray words, `--`. */
const arg: fc.Arbitrary<string[]> = fc.oneof(
  knownFlag.chain((spec) => value(spec.kind).map((v) => [`--${spec.name}=${v}`])),
  knownFlag.chain((spec) => value(spec.kind).map((v) => [`--${spec.name}`, v])),
  knownFlag.map((spec) => [`--${spec.name}`]),
  knownFlag.map((spec) => [`--${spec.name.replace(/-/g, '_')}=1`]),
  fc.constantFrom<string[]>(['-v4'], ['-v', '9'], ['-v=x'], ['-h'], ['-hv'], ['--'], ['-'], ['---x'], ['--=x'], ['-=']),
  fc.string({ maxLength: 12 }).map((name) => [`--${name}=x`]),
  hostileText().map((t) => [t.slice(0, 2_000)]),
);
const argv = fc.array(arg, { maxLength: 12 }).map((parts) => parts.flat());

describe('kubelet flags (fuzz)', () => {
  it('parses random argv of known and unknown flags, or names the flag and why', async () => {
    await fuzz(
      'config: kubelet command-line flags',
      argv,
      async (args) => {
        const parsed = parseKubeletArgs(args);
        for (const e of parsed.errors) {
          // A flag error names the flag; a stray word (upstream: "unknown command") is the command line's.
          // A name that is not printable ASCII is JSON-quoted (`flag "--a\\nb"`).
          expect(e.source).toMatch(/^(flag (--?[\x21-\x7e]+|"--?.*")|command line)$/);
          expect(e.source).not.toMatch(/[\n\r]/);
          expect(e.reason.length).toBeGreaterThan(0);
        }
        // The whole load (flags validated like file values, defaults, cross-field checks) never throws either.
        const loaded = await loadKubeletConfiguration({
          argv: args,
          readFile: (path) => Promise.reject(new Error(`ENOENT: no such file ${path}`)),
          readDir: (path) => Promise.reject(new Error(`ENOENT: no such directory ${path}`)),
        });
        if (!loaded.ok) {
          expect(loaded.errors.length).toBeGreaterThan(0);
          for (const e of loaded.errors) {
            expect(e.source.length).toBeGreaterThan(0);
            expect(e.reason.length).toBeGreaterThan(0);
          }
          // Every flag error of the parse is reported by the load too.
          for (const e of parsed.errors) expect(loaded.errors).toContainEqual(e);
        }
      },
      { runs: 300 },
    );
  });

  it('names the flag whose value it refuses', async () => {
    await fuzz(
      'config: one kubelet flag with a hostile value',
      knownFlag.chain((spec) => value(spec.kind).map((v) => [spec.name, v] as const)),
      ([name, v]) => {
        const parsed = parseKubeletArgs([`--${name}=${v}`]);
        for (const e of parsed.errors) {
          // klog's one-letter flags (`-v`) are printed with one dash.
          expect(e.source).toBe(name.length === 1 ? `flag -${name}` : `flag --${name}`);
          expect(e.reason.length).toBeGreaterThan(0);
        }
      },
      { runs: 400 },
    );
  });
});
