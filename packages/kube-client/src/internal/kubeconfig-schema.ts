// zod over client-node's parsed kubeconfig model: every failure names the kubeconfig field.
import { z } from 'zod';

/** The YAML document as read (only what client-node's model does not keep is looked at here). */
export interface RawKubeconfig {
  readonly 'current-context'?: unknown;
  readonly clusters?: unknown;
  readonly users?: unknown;
  readonly contexts?: unknown;
}

const optionalString = z
  .string()
  .nullish()
  .transform((v) => (v === null || v === '' ? undefined : v));
const base64 = optionalString.refine((v) => v === undefined || /^[A-Za-z0-9+/=\s]+$/.test(v), 'not base64');

const ClusterModel = z.object({
  name: z.string().min(1),
  server: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//.test(v), 'must be an https:// (or http://) URL'),
  caData: base64,
  caFile: optionalString,
  skipTLSVerify: z.boolean(),
  tlsServerName: optionalString,
  proxyUrl: optionalString.refine((v) => v === undefined, 'proxies are not supported'),
});

const UserModel = z
  .object({
    name: z.string().min(1),
    certData: base64,
    certFile: optionalString,
    keyData: base64,
    keyFile: optionalString,
    token: optionalString,
    exec: z.unknown().refine((v) => v === undefined || v === null, 'exec credential plugins are not supported'),
    authProvider: z.unknown().refine((v) => v === undefined || v === null, 'auth-provider plugins are not supported'),
    username: optionalString.refine((v) => v === undefined, 'basic authentication is not supported'),
    password: optionalString,
  })
  .refine((u) => (u.certData !== undefined || u.certFile !== undefined) === (u.keyData !== undefined || u.keyFile !== undefined), {
    message: 'a client certificate needs a client key and the other way round',
    path: ['certFile'],
  });

const ContextModel = z.object({
  name: z.string().min(1),
  cluster: z.string().min(1),
  user: optionalString,
  namespace: optionalString,
});

/** client-node's model field → the kubeconfig key it came from. */
const KEY: Record<string, string> = {
  caData: 'certificate-authority-data',
  caFile: 'certificate-authority',
  skipTLSVerify: 'insecure-skip-tls-verify',
  tlsServerName: 'tls-server-name',
  proxyUrl: 'proxy-url',
  certData: 'client-certificate-data',
  certFile: 'client-certificate',
  keyData: 'client-key-data',
  keyFile: 'client-key',
  authProvider: 'auth-provider',
};

export type ClusterModel = z.infer<typeof ClusterModel>;
export type UserModel = z.infer<typeof UserModel>;
export type ContextModel = z.infer<typeof ContextModel>;

export interface CheckedKubeconfig {
  cluster: ClusterModel;
  user: UserModel;
  context: ContextModel;
  tokenFile: string | undefined;
}

type Checked = { ok: true; value: CheckedKubeconfig } | { ok: false; message: string };

function check<S extends z.ZodType>(schema: S, value: unknown, where: string, inner: string): z.infer<S> | string {
  const result = schema.safeParse(value);
  if (result.success) return result.data as z.infer<S>;
  const issue = result.error.issues[0];
  const field = issue?.path[0];
  const key = typeof field === 'string' ? (KEY[field] ?? field) : undefined;
  const name = key === undefined ? where : key === 'name' ? `${where}.name` : `${where}.${inner}.${key}`;
  return `${name}: ${issue?.message ?? 'invalid'}`;
}

const indexByName = (list: unknown[], name: string): number =>
  list.findIndex((e) => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === name);

/** Picks the context (given, or `current-context`), its cluster and user, and validates the three. */
export function checkKubeconfig(
  raw: RawKubeconfig,
  parsed: { clusters: unknown[]; users: unknown[]; contexts: unknown[] },
  wanted: string | undefined,
): Checked {
  const fail = (message: string): Checked => ({ ok: false, message });
  const current = raw['current-context'];
  const contextName = wanted ?? (typeof current === 'string' && current !== '' ? current : undefined);
  if (contextName === undefined) return fail('current-context: not set (and no context was asked for)');
  const ci = indexByName(parsed.contexts, contextName);
  if (ci < 0) return fail(`${wanted === undefined ? 'current-context' : 'context'}: no context named "${contextName}" in contexts`);
  const context = check(ContextModel, parsed.contexts[ci], `contexts[${ci}]`, 'context');
  if (typeof context === 'string') return fail(context);

  const ki = indexByName(parsed.clusters, context.cluster);
  if (ki < 0) return fail(`contexts[${ci}].context.cluster: no cluster named "${context.cluster}" in clusters`);
  const cluster = check(ClusterModel, parsed.clusters[ki], `clusters[${ki}]`, 'cluster');
  if (typeof cluster === 'string') return fail(cluster);

  let user: UserModel = { name: '' } as UserModel;
  let tokenFile: string | undefined;
  if (context.user !== undefined) {
    const ui = indexByName(parsed.users, context.user);
    if (ui < 0) return fail(`contexts[${ci}].context.user: no user named "${context.user}" in users`);
    const checked = check(UserModel, parsed.users[ui], `users[${ui}]`, 'user');
    if (typeof checked === 'string') return fail(checked);
    user = checked;
    // client-go's key is tokenFile; client-node's is token-file: accept both.
    const rawUser = (Array.isArray(raw.users) ? (raw.users[ui] as { user?: Record<string, unknown> } | undefined) : undefined)?.user;
    const file = rawUser?.tokenFile ?? rawUser?.['token-file'];
    if (file !== undefined && file !== null && file !== '') {
      if (typeof file !== 'string') return fail(`users[${ui}].user.tokenFile: expected a path`);
      tokenFile = file;
    }
  }
  return { ok: true, value: { cluster, user, context, tokenFile } };
}
