import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hasConflictingDatabaseConfig,
  isPostgresURL,
  resolveDatabaseSecret,
} from '../../../../src/controllers/codercontrolplane/database-secret.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';

const password = 's3cr3t-Pa55';
const host = 'db.internal.example';
const cp = aControlPlane('coder').inNamespace('coder').withDatabase('coder-db-app', 'uri').build();
const secret = (data: Record<string, string>): V1Secret => ({
  metadata: { name: 'coder-db-app', namespace: 'coder' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

describe('resolveDatabaseSecret: the deploy guide table', () => {
  const rows: [string, V1Secret | undefined, string, string][] = [
    [
      'the Secret holds a postgres:// URL',
      secret({ uri: `postgres://coder:${password}@${host}:5432/coder?sslmode=disable` }),
      'True',
      'Resolved',
    ],
    ['the Secret holds a postgresql:// URL', secret({ uri: `postgresql://coder:${password}@${host}/coder` }), 'True', 'Resolved'],
    ['the Secret does not exist', undefined, 'False', 'SecretNotFound'],
    ['the Secret lacks the key', secret({ url: `postgres://coder:${password}@${host}/coder` }), 'False', 'KeyNotFound'],
    ['the value is empty', secret({ uri: '' }), 'False', 'EmptyValue'],
    ['the value is only whitespace', secret({ uri: ' \n\t ' }), 'False', 'EmptyValue'],
    ['the scheme is not lower case', secret({ uri: `Postgres://coder:${password}@${host}/coder` }), 'False', 'InvalidURL'],
    ['the scheme is upper case', secret({ uri: `POSTGRES://coder:${password}@${host}/coder` }), 'False', 'InvalidURL'],
    ['the value has a trailing newline', secret({ uri: `postgres://coder:${password}@${host}/coder\n` }), 'False', 'InvalidURL'],
    ['the port is not a number', secret({ uri: `postgres://coder:${password}@${host}:port/coder` }), 'False', 'InvalidURL'],
    ['it is a keyword DSN', secret({ uri: `host=${host} password=${password}` }), 'False', 'InvalidURL'],
    ['it is another database', secret({ uri: `mysql://coder:${password}@${host}/coder` }), 'False', 'InvalidURL'],
    ['it is opaque', secret({ uri: 'postgres:coder' }), 'False', 'InvalidURL'],
  ];
  for (const [when, input, status, reason] of rows) {
    it(`reports ${status} ${reason} when ${when}`, () => {
      const result = resolveDatabaseSecret(cp, input);
      assert.equal(result.condition.status, status);
      assert.equal(result.condition.reason, reason);
      assert.equal(result.condition.type, 'DatabaseSecretResolved');
      // The deploy guide promises the Secret's name and key in every message.
      assert.match(result.condition.message, /Secret "coder-db-app"/);
      assert.match(result.condition.message, /key "uri"/);
      for (const leak of [password, host, 'mysql://', 'postgres://coder'])
        assert.ok(!result.condition.message.includes(leak), `message leaks ${leak}`);
      assert.equal(result.url !== undefined, status === 'True');
    });
  }

  it('names the namespace as well when the Secret is missing', () => {
    assert.equal(
      resolveDatabaseSecret(cp, undefined).condition.message,
      'Secret "coder-db-app" (key "uri") was not found in namespace "coder".',
    );
    assert.equal(resolveDatabaseSecret(cp, secret({})).condition.message, 'Secret "coder-db-app" does not contain key "uri".');
  });

  it('hands the URL to the bootstrap exactly as stored', () => {
    const url = `postgres://coder:${password}@${host}:5432/coder?sslmode=disable`;
    assert.equal(resolveDatabaseSecret(cp, secret({ uri: url })).url, url);
    assert.ok(isPostgresURL('postgresql:///coder?host=/run/postgresql'));
  });

  it('detects the spec.database + extraEnv CODER_PG_CONNECTION_URL conflict', () => {
    assert.equal(hasConflictingDatabaseConfig(cp), false);
    assert.equal(
      hasConflictingDatabaseConfig({ ...cp, spec: { ...cp.spec, extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'x' }] } }),
      true,
    );
    assert.equal(hasConflictingDatabaseConfig({ ...cp, spec: { extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'x' }] } }), false);
  });
});
