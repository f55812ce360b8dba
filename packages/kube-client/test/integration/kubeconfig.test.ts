import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cleanup } from '@kubelet-ts/test-support';
import { loadKubeconfig } from '../../src/index.js';
import { client, env, whoAmI } from './helpers.js';

describe('kubeconfigs of the control plane', () => {
  const cleanup = new Cleanup();
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-kc-it-'));
    cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  });
  afterAll(() => cleanup.run());

  const identity = async (file: string, options = {}) => {
    const c = client(await loadKubeconfig(file), options);
    cleanup.add(() => c.closeAllConnections());
    return whoAmI(c);
  };

  it('the admin kubeconfig authenticates as a system:masters user', async () => {
    expect((await identity(env.kubeconfig)).groups).toContain('system:masters');
  });

  it('the node kubeconfig (client certificate) authenticates as system:node:<node> in system:nodes', async () => {
    const who = await identity(env.nodeKubeconfig);
    expect(who.username).toBe(`system:node:${env.nodeName}`);
    expect(who.groups).toContain('system:nodes');
  });

  it('the bootstrap kubeconfig (token) authenticates as a bootstrap token in system:bootstrappers', async () => {
    const who = await identity(env.bootstrapKubeconfig);
    expect(who.username).toBe(`system:bootstrap:${env.bootstrapToken.split('.')[0] ?? ''}`);
    expect(who.groups).toContain('system:bootstrappers');
  });

  const pemOf = async (kubeconfig: string): Promise<string> => {
    const c = await loadKubeconfig(kubeconfig);
    const read = (m: typeof c.clientCertificate): string =>
      m === undefined ? '' : 'file' in m ? fs.readFileSync(m.file, 'utf8') : m.data.toString();
    return `${read(c.clientCertificate)}${read(c.clientKey)}`;
  };
  const writeKubeconfig = (name: string, user: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "${env.apiserver}", certificate-authority: "${env.caFile}"}
users:
- name: u
  user:
${user}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`,
    );
    return file;
  };

  it('one PEM file holding certificate and key serves as both (as the upstream kubelet writes kubelet-client-current.pem)', async () => {
    fs.writeFileSync(path.join(dir, 'kubelet-client-current.pem'), await pemOf(env.nodeKubeconfig), { mode: 0o600 });
    const file = writeKubeconfig(
      'combined.kubeconfig',
      '    client-certificate: kubelet-client-current.pem\n    client-key: kubelet-client-current.pem',
    );
    expect((await identity(file)).username).toBe(`system:node:${env.nodeName}`);
  });

  it('tokenFile is read relative to the kubeconfig', async () => {
    fs.writeFileSync(path.join(dir, 'token'), `${env.bootstrapToken}\n`);
    const file = writeKubeconfig('token.kubeconfig', '    tokenFile: token');
    expect((await identity(file)).username).toMatch(/^system:bootstrap:/);
  });

  it('picks up a rotated client certificate: the next request uses it, on a new connection', async () => {
    const pem = path.join(dir, 'rotating.pem');
    fs.writeFileSync(pem, await pemOf(env.nodeKubeconfig), { mode: 0o600 });
    const file = writeKubeconfig('rotating.kubeconfig', `    client-certificate: ${pem}\n    client-key: ${pem}`);
    const c = client(await loadKubeconfig(file), { reloadCheckMs: 0 });
    cleanup.add(() => c.closeAllConnections());
    expect((await whoAmI(c)).username).toBe(`system:node:${env.nodeName}`);
    expect((await whoAmI(c)).username).toBe(`system:node:${env.nodeName}`);
    expect(c.stats().connectionsOpened).toBe(1);
    // Rotation writes a new file in place (the kubelet's certificate store moves a symlink).
    fs.writeFileSync(`${pem}.new`, await pemOf(env.kubeconfig), { mode: 0o600 });
    fs.renameSync(`${pem}.new`, pem);
    expect((await whoAmI(c)).groups).toContain('system:masters');
    expect(c.stats().connectionsOpened).toBe(2);
  });
});
