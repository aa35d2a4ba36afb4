// The environment of the Coder container, in the Go original's order.
import type { V1EnvVar } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { tlsFileList } from './volumes.ts';
import { coderHttpsPort, defaultAccessURL } from './names.ts';
import { SpecError } from '../../shared/spec-check.ts';
import { tlsEnabled } from '../../../controlplane/endpoints.ts';

export const accessUrlEnv = 'CODER_ACCESS_URL';
export const pgConnectionUrlEnv = 'CODER_PG_CONNECTION_URL';
/** The admission rule's message; the controller uses the same words when it meets the combination. */
export const databaseExtraEnvConflictMessage =
  'spec.extraEnv must not set CODER_PG_CONNECTION_URL when spec.database.connectionSecretRef is set';

/** Whether the operator adds the default CODER_ACCESS_URL (see defaultAccessURL). */
function wantsDefaultAccessURL(cp: CoderControlPlane, accessUrlFromEnvFrom: boolean): boolean {
  return (
    cp.spec?.envUseClusterAccessURL !== false && !(cp.spec?.extraEnv ?? []).some((e) => e.name === accessUrlEnv) && !accessUrlFromEnvFrom
  );
}

/**
 * The container env: KUBE_POD_IP, CODER_DERP_SERVER_RELAY_URL, the default CODER_ACCESS_URL when
 * due, the TLS variables, CODER_PG_CONNECTION_URL as a secretKeyRef when spec.database is set (never
 * the URL itself), then spec.extraEnv verbatim.
 *
 * extraEnv wins over the operator's variables. Kubernetes would let the later duplicate win, but a
 * server-side apply rejects a list with two entries of one name, so an operator variable that
 * extraEnv also sets is left out rather than sent twice; for the same reason a name repeated within
 * extraEnv is a SpecError.
 */
export function buildCoderEnv(cp: CoderControlPlane, accessUrlFromEnvFrom: boolean): V1EnvVar[] {
  const extraEnv = cp.spec?.extraEnv ?? [];
  checkExtraEnv(cp);
  const env: V1EnvVar[] = [
    { name: 'KUBE_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    { name: 'CODER_DERP_SERVER_RELAY_URL', value: 'http://$(KUBE_POD_IP):8080' },
  ];
  if (wantsDefaultAccessURL(cp, accessUrlFromEnvFrom)) env.push({ name: accessUrlEnv, value: defaultAccessURL(cp) });
  if (tlsEnabled(cp)) {
    env.push(
      { name: 'CODER_TLS_ENABLE', value: 'true' },
      { name: 'CODER_TLS_ADDRESS', value: `0.0.0.0:${coderHttpsPort}` },
      { name: 'CODER_TLS_CERT_FILE', value: tlsFileList(cp, 'tls.crt') },
      { name: 'CODER_TLS_KEY_FILE', value: tlsFileList(cp, 'tls.key') },
    );
  }
  const database = cp.spec?.database;
  if (database) {
    const { name, key } = database.connectionSecretRef ?? {};
    if (!name)
      throw new SpecError(
        'spec.database.connectionSecretRef.name',
        'connectionSecretRef.name must not be empty; name the Secret that holds the PostgreSQL URL',
      );
    if (!key)
      throw new SpecError(
        'spec.database.connectionSecretRef.key',
        'connectionSecretRef.key must not be empty; name the key that holds the PostgreSQL URL',
      );
    env.push({ name: pgConnectionUrlEnv, valueFrom: { secretKeyRef: { name, key } } });
  }
  const overridden = new Set(extraEnv.map((e) => e.name));
  return [...env.filter((e) => !overridden.has(e.name)), ...structuredClone(extraEnv)];
}

function checkExtraEnv(cp: CoderControlPlane): void {
  const firstIndex = new Map<string, number>();
  (cp.spec?.extraEnv ?? []).forEach((e, i) => {
    const field = `spec.extraEnv[${i}]`;
    if (!e.name) throw new SpecError(`${field}.name`, 'the variable name is empty');
    if (e.name === pgConnectionUrlEnv && cp.spec?.database) throw new SpecError(field, databaseExtraEnvConflictMessage);
    const first = firstIndex.get(e.name);
    if (first !== undefined) {
      throw new SpecError(field, `${e.name} is configured more than once (also spec.extraEnv[${first}]); keep one entry`);
    }
    firstIndex.set(e.name, i);
  });
}
