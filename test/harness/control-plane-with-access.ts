// A CoderControlPlane whose operator access is ready. Against the Coder API double: its own database in
// the harness PostgreSQL holding a Coder release's own database (coder-database.ts; the operator bootstraps
// the operator user there), and the token it stores made valid in the double. Against the real Coder server: Coder's own
// database, so the token the operator mints there is one the server itself accepts. For the suites of
// kinds that call Coder through a control plane.
import { CoreV1Api } from '@kubernetes/client-node';
import { coderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { createCoderDatabase } from './coder-database.ts';
import type { CoderApiDouble } from './coder-api-double.ts';
import type { Environment, OperatorEnvironment } from './operator-environment.ts';
import type { RealCoder } from './real-coder.ts';
import { eventually } from './wait.ts';

/** Creates (or, with `existing`, gives a database to) the control plane and waits for operator access; returns its token. */
export async function controlPlaneWithOperatorAccess(
  env: Environment<CoderApiDouble | RealCoder>,
  namespace: string,
  name = 'coder',
  options: { existing?: boolean; spec?: CoderControlPlane['spec'] } = {},
): Promise<{ token: string; controlPlane: CoderControlPlane }> {
  const core = env.cp.adminConfig().makeApiClient(CoreV1Api);
  const client = coderControlPlaneClient(env.cp.adminConfig());
  const url = 'databaseURL' in env.coder ? env.coder.databaseURL : await createCoderDatabase(env.postgres);
  const dbSecret = `${name}-db-app`;
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: dbSecret }, stringData: { uri: url } } });
  const database = { connectionSecretRef: { name: dbSecret, key: 'uri' } };
  if (options.existing) await client.mergePatch(namespace, name, { spec: { database } });
  else
    await client.create(
      aControlPlane(name)
        .inNamespace(namespace)
        .withSpec({ ...options.spec, database })
        .manifest(),
    );
  return { ...(await operatorAccessToken(env, namespace, name)) };
}

/** Waits until the control plane reports operator access, and makes its current token valid in the double (if the double). */
export async function operatorAccessToken(
  env: Environment<CoderApiDouble | RealCoder>,
  namespace: string,
  name = 'coder',
): Promise<{ token: string; controlPlane: CoderControlPlane }> {
  const core = env.cp.adminConfig().makeApiClient(CoreV1Api);
  const client = coderControlPlaneClient(env.cp.adminConfig());
  const controlPlane = await eventually(
    `operator access of CoderControlPlane ${namespace}/${name}`,
    async () => {
      const cp = await client.get(namespace, name);
      return cp.status?.operatorAccessReady && cp.status.url ? cp : undefined;
    },
    { timeoutMs: 90_000 },
  );
  const secret = await core.readNamespacedSecret({ namespace, name: controlPlane.status!.operatorTokenSecretRef!.name });
  const token = Buffer.from(secret.data!.token!, 'base64').toString();
  if ('addToken' in env.coder) env.coder.addToken(token);
  return { token, controlPlane };
}

/**
 * Waits until the control plane has read Coder's entitlements (status.entitlementsLastChecked). Its first
 * read ran before the double knew the new token, failed, and is retried 30 s later with a status write;
 * an annotation (a change that reconciles it) brings that forward, so that a quiet period measured after
 * this sees no write from the control plane settling.
 */
export async function entitlementsRead(env: OperatorEnvironment, namespace: string, name = 'coder'): Promise<void> {
  const client = coderControlPlaneClient(env.cp.adminConfig());
  if ((await client.get(namespace, name)).status?.entitlementsLastChecked) return;
  await client.mergePatch(namespace, name, { metadata: { annotations: { 'test.coder.com/token-known': 'true' } } });
  await eventually(
    `entitlements read by CoderControlPlane ${namespace}/${name}`,
    async () => (await client.get(namespace, name)).status?.entitlementsLastChecked,
    { timeoutMs: 60_000 },
  );
}
