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
import { operatorTokenMarks } from '../../../../src/controllers/shared/operator-token-marks.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const cp = aControlPlane('coder').inNamespace('coder').withUid('uid-now').build();
const secret = (ownerUid?: string, marks: 'marked' | 'unmarked' | 'label only' | 'marks of another UID' = 'marked') => ({
  metadata: {
    name: 'coder-operator-token',
    namespace: 'coder',
    ...(ownerUid
      ? { ownerReferences: [controllerOwnerReference(coderControlPlaneResource, { metadata: { ...cp.metadata, uid: ownerUid } })] }
      : {}),
    ...(marks === 'marked' ? operatorTokenMarks(cp) : {}),
    ...(marks === 'label only' ? { labels: operatorTokenMarks(cp).labels } : {}),
    ...(marks === 'marks of another UID' ? operatorTokenMarks({ ...cp, metadata: { ...cp.metadata, uid: 'uid-other' } }) : {}),
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
    {
      name: "a Secret with a forged controller owner reference and none of the operator's marks",
      secret: secret('uid-now', 'unmarked'),
      ownership: 'unmarked',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    {
      name: 'a Secret with a forged controller owner reference and only the label',
      secret: secret('uid-now', 'label only'),
      ownership: 'unmarked',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    {
      name: 'a Secret with a forged controller owner reference and the marks of another control plane',
      secret: secret('uid-now', 'marks of another UID'),
      ownership: 'unmarked',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
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

  it('names the missing marks when only the owner reference is there', () => {
    assert.match(
      ownershipCondition(cp, 'unmarked').message,
      /lacks the operator's marks \(label coder.com\/operator-token=true and annotation coder.com\/operator-token-owner/,
    );
  });

  it('tells the user how to get out of a foreign Secret, without reading it', () => {
    assert.match(ownershipCondition(cp, 'foreign').message, /does not read, change or adopt it.*generatedTokenSecretName/s);
  });

  it('creates the Secret controlled by the control plane, marked as a credential for it alone', () => {
    const built = buildTokenSecret(cp, 'the-token');
    assert.deepEqual(built.metadata?.ownerReferences, [controllerOwnerReference(coderControlPlaneResource, cp)]);
    assert.equal(built.metadata?.labels?.['coder.com/credential'], 'true');
    assert.equal(built.metadata?.annotations?.['coder.com/credential-destinations'], 'codercontrolplane/coder');
    assert.equal(built.metadata?.labels?.['coder.com/operator-token'], 'true');
    assert.equal(built.metadata?.annotations?.['coder.com/operator-token-owner'], 'uid-now');
    assert.equal(tokenSecretOwnership(cp, built), 'owned', 'the Secret the operator builds is one it trusts');
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
