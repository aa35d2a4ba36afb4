// A fresh PKI per control plane: cluster CA, front-proxy CA, serving and client certificates, SA keys.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await run('openssl', args, { cwd: dir });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`pki: openssl ${args[0]} failed: ${stderr.trim() || (err as Error).message}`);
  }
}

const keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export async function createCA(dir: string, name: string): Promise<void> {
  await openssl(dir, [
    'req',
    '-x509',
    ...keyArgs,
    '-days',
    '3650',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
}

/** A certificate for `subject` (openssl -subj syntax) signed by the CA `ca`, as `<name>.crt` and `<name>.key` in `dir`. */
export async function createLeaf(dir: string, name: string, ca: string, subject: string, extensions: string): Promise<void> {
  await openssl(dir, ['req', ...keyArgs, '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '365',
    '-out',
    `${name}.crt`,
    '-extfile',
    `${name}.ext`,
  ]);
}

const serverExt = (dnsNames: string[]) =>
  [
    `subjectAltName=${[...dnsNames.map((n) => `DNS:${n}`), 'IP:127.0.0.1', 'IP:::1'].join(',')}`,
    'extendedKeyUsage=serverAuth',
    'keyUsage=critical,digitalSignature,keyEncipherment',
  ].join('\n');
/** The extended key usage of a client certificate: clientAuth, another usage only, or none at all. */
export type ClientUsage = 'clientAuth' | 'serverAuth' | 'none';
const clientExt = (usage: ClientUsage = 'clientAuth') =>
  [...(usage === 'none' ? [] : [`extendedKeyUsage=${usage}`]), 'keyUsage=critical,digitalSignature,keyEncipherment'].join('\n');

/** Subject of a client certificate: CN is the user name, each O a group. */
function clientSubject(user: string, groups: string[]): string {
  return [...groups.map((g) => `/O=${g}`), `/CN=${user}`].join('');
}

export interface ClientCert {
  certFile: string;
  keyFile: string;
}

export interface Pki {
  dir: string;
  caFile: string;
  caPem: string;
  apiserverCert: ClientCert;
  frontProxyCaFile: string;
  frontProxyClient: ClientCert;
  serviceAccountKeyFile: string;
  serviceAccountPubFile: string;
  /**
   * Mints a client certificate for a user in the given groups, signed by the cluster CA or, for the
   * front proxy's own identity (CN front-proxy-client) or a wrong one, by the front-proxy CA; `usage`
   * other than clientAuth makes one that may not be used as a client certificate, or one without any.
   */
  clientCert(user: string, groups: string[], signer?: 'ca' | 'front-proxy-ca', usage?: ClientUsage): Promise<ClientCert>;
  /** Mints a serving certificate signed by the cluster CA for localhost, 127.0.0.1 and ::1 (a harness server's own). */
  serverCert(name: string): Promise<ClientCert>;
}

export async function createPki(dir: string): Promise<Pki> {
  await Promise.all([createCA(dir, 'ca'), createCA(dir, 'front-proxy-ca')]);
  await Promise.all([
    createLeaf(
      dir,
      'apiserver',
      'ca',
      '/CN=kube-apiserver',
      serverExt(['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc']),
    ),
    createLeaf(dir, 'front-proxy-client', 'front-proxy-ca', '/CN=front-proxy-client', clientExt()),
    openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'sa.key']),
  ]);
  await openssl(dir, ['ec', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  const files = (name: string): ClientCert => ({ certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) });
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    caPem: await readFile(join(dir, 'ca.crt'), 'utf8'),
    apiserverCert: files('apiserver'),
    frontProxyCaFile: join(dir, 'front-proxy-ca.crt'),
    frontProxyClient: files('front-proxy-client'),
    serviceAccountKeyFile: join(dir, 'sa.key'),
    serviceAccountPubFile: join(dir, 'sa.pub'),
    async clientCert(user, groups, signer = 'ca', usage = 'clientAuth') {
      const suffix = usage === 'clientAuth' ? '' : `-${usage}`;
      const name = `${signer === 'ca' ? 'client' : signer}-${user.replace(/[^A-Za-z0-9_-]/g, '_')}${suffix}`;
      await createLeaf(dir, name, signer, clientSubject(user, groups), clientExt(usage));
      return files(name);
    },
    async serverCert(name) {
      const file = `server-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      await createLeaf(dir, file, 'ca', `/CN=${name}`, serverExt(['localhost']));
      return files(file);
    },
  };
}
