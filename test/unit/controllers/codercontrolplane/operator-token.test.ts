import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../../generated/clients/codercontrolplane.ts';
import {
  buildTokenSecret,
  ownershipCondition,
  readToken,
  tokenSecretOwnership,
} from '../../../../src/controllers/codercontrolplane/operator-token.ts';
import { resolveCredentialSecret } from '../../../../src/controllers/shared/credential-secret.ts';
import { controllerOwnerReference } from '../../../../src/controllers/shared/object-names.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const cp = aControlPlane('coder').inNamespace('coder').withUid('uid-now').build();
const secret = (ownerUid?: string) => ({
  metadata: {
    name: 'coder-operator-token',
    namespace: 'coder',
    ...(ownerUid
      ? { ownerReferences: [controllerOwnerReference(coderControlPlaneResource, { metadata: { ...cp.metadata, uid: ownerUid } })] }
      : {}),
  },
  data: { token: Buffer.from('tok').toString('base64') },
});

describe('operator token Secret (seed: Operator token Secret)', () => {
  const rows = [
    { name: 'no Secret', secret: undefined, ownership: 'absent', status: 'True', reason: 'TokenSecretOwned' },
    {
      name: 'a Secret this control plane controls',
      secret: secret('uid-now'),
      ownership: 'owned',
      status: 'True',
      reason: 'TokenSecretOwned',
    },
    {
      name: 'a Secret of an earlier control plane of the same name',
      secret: secret('uid-before'),
      ownership: 'foreign',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    { name: 'a Secret nobody controls', secret: secret(), ownership: 'foreign', status: 'False', reason: 'TokenSecretNotOwned' },
  ] as const;
  for (const row of rows) {
    it(`treats ${row.name} as ${row.ownership}: OperatorTokenSecretOwned ${row.status} ${row.reason}`, () => {
      const ownership = tokenSecretOwnership(cp, row.secret);
      assert.equal(ownership, row.ownership);
      const condition = ownershipCondition(cp, ownership);
      assert.deepEqual([condition.type, condition.status, condition.reason], ['OperatorTokenSecretOwned', row.status, row.reason]);
      assert.match(condition.message, /Secret "coder\/coder-operator-token"/);
    });
  }

  it('tells the user how to get out of a foreign Secret, without reading it', () => {
    assert.match(ownershipCondition(cp, 'foreign').message, /does not read, change or adopt it.*generatedTokenSecretName/s);
  });

  it('creates the Secret controlled by the control plane, marked as a credential for it alone', () => {
    const built = buildTokenSecret(cp, 'the-token');
    assert.deepEqual(built.metadata?.ownerReferences, [controllerOwnerReference(coderControlPlaneResource, cp)]);
    assert.equal(built.metadata?.labels?.['coder.com/credential'], 'true');
    assert.equal(built.metadata?.annotations?.['coder.com/credential-destinations'], 'codercontrolplane/coder');
    assert.equal(readToken(built), 'the-token');
    const other = aWorkspaceProxy('eu').inNamespace('coder').withUid('p').build();
    assert.equal(resolveCredentialSecret(other, { name: 'coder-operator-token', key: 'token' }, built).ready, false);
  });

  it('reads the token trimmed, and an empty or missing one as none', () => {
    const withToken = (value?: string): V1Secret => ({ data: value === undefined ? {} : { token: Buffer.from(value).toString('base64') } });
    assert.equal(readToken(withToken(' abc\n')), 'abc');
    assert.equal(readToken(withToken('  ')), undefined);
    assert.equal(readToken(withToken()), undefined);
  });
});
