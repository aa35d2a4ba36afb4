// Kubeconfig files for the harness's identities: client certificates or bearer tokens.
import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { ClientCert } from './pki.ts';

export type Credentials = { cert: ClientCert } | { token: string };

export async function writeKubeconfig(
  path: string,
  server: string,
  caPem: string,
  user: string,
  credentials: Credentials,
): Promise<string> {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
  const userEntry =
    'token' in credentials
      ? { token: credentials.token }
      : {
          'client-certificate-data': b64(await readFile(credentials.cert.certFile)),
          'client-key-data': b64(await readFile(credentials.cert.keyFile)),
        };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'harness', cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [{ name: user, user: userEntry }],
    contexts: [{ name: user, context: { cluster: 'harness', user } }],
    'current-context': user,
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
}
