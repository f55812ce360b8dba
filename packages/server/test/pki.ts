// Throw-away certificates for the https tests, made with the machine's openssl (no x509 library here).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  cert: string;
  key: string;
}

export interface TestPki {
  dir: string;
  /** Makes a CA whose certificates `issue` signs. */
  ca(name: string): KeyPair;
  /** A leaf signed by `ca`, with the subject (`/CN=alice/O=devs`) and extensions given. */
  issue(ca: KeyPair, name: string, subject: string, extensions: string): KeyPair;
  cleanup(): void;
}

const openssl = (dir: string, args: string[]): void => {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
};

export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-pki-'));
  const read = (name: string): KeyPair => ({
    cert: readFileSync(join(dir, `${name}.crt`), 'utf8'),
    key: readFileSync(join(dir, `${name}.key`), 'utf8'),
  });
  const genKey = (name: string): void =>
    openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`]);
  return {
    dir,
    ca(name) {
      genKey(name);
      writeFileSync(
        join(dir, `${name}.cnf`),
        '[req]\ndistinguished_name=dn\nx509_extensions=v3\n[dn]\n[v3]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n',
      );
      openssl(dir, [
        'req',
        '-x509',
        '-new',
        '-key',
        `${name}.key`,
        '-subj',
        `/CN=${name}`,
        '-days',
        '2',
        '-config',
        `${name}.cnf`,
        '-out',
        `${name}.crt`,
      ]);
      return read(name);
    },
    issue(ca, name, subject, extensions) {
      genKey(name);
      writeFileSync(join(dir, `${name}.ca.crt`), ca.cert);
      writeFileSync(join(dir, `${name}.ca.key`), ca.key);
      writeFileSync(join(dir, `${name}.ext`), `${extensions}\n`);
      writeFileSync(join(dir, `${name}.cnf`), '[req]\ndistinguished_name=dn\n[dn]\n');
      openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', subject, '-config', `${name}.cnf`, '-out', `${name}.csr`]);
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${name}.ca.crt`,
        '-CAkey',
        `${name}.ca.key`,
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.crt`,
      ]);
      return read(name);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
