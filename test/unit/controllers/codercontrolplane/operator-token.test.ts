import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../../generated/clients/codercontrolplane.ts';
import {
  buildTokenSecret,
  foreignAnnotations,
  foreignAnnotationsCondition,
  ownershipCondition,
  ownMarks,
  readToken,
  tokenSecretOwnership,
} from '../../../../src/controllers/codercontrolplane/operator-token.ts';
import { resolveCredentialSecret } from '../../../../src/controllers/shared/credential-secret.ts';
import { controllerOwnerReference } from '../../../../src/runtime/object-names.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const base = aControlPlane('coder').inNamespace('coder').withUid('uid-now');
const cp = base.build();
/** The control plane as this version leaves it: the UID of the Secret it created recorded. */
const recording = base.withStatus({ operatorTokenSecretUID: 'secret-uid-mine' }).build();
/** As an earlier version (or the Go original) left it: the reference to the Secret it used, no UID. */
const earlier = base
  .withStatus({ operatorAccessReady: true, operatorTokenSecretRef: { name: 'coder-operator-token', key: 'token' } })
  .build();
/** The retry marker of a disable whose revoke failed: the reference, access not ready. */
const disabling = base
  .withStatus({ operatorAccessReady: false, operatorTokenSecretRef: { name: 'coder-operator-token', key: 'token' } })
  .build();
const secret = (ownerUid?: string, uid = 'secret-uid-mine', annotations: Record<string, string> = {}): V1Secret => ({
  metadata: {
    name: 'coder-operator-token',
    namespace: 'coder',
    uid,
    ...(ownerUid
      ? { ownerReferences: [controllerOwnerReference(coderControlPlaneResource, { metadata: { ...cp.metadata, uid: ownerUid } })] }
      : {}),
    // A forger copies the operator's marks too.
    labels: ownMarks(cp).labels,
    annotations: { ...ownMarks(cp).annotations, ...annotations },
  },
  data: { token: Buffer.from('tok').toString('base64') },
});

describe('operator token Secret (seed: Operator token Secret)', () => {
  const rows = [
    { name: 'no Secret', of: recording, secret: undefined, ownership: 'absent', status: 'True', reason: 'TokenSecretOwned' },
    {
      name: 'the Secret whose UID the status records',
      of: recording,
      secret: secret('uid-now'),
      ownership: 'recorded',
      status: 'True',
      reason: 'TokenSecretOwned',
    },
    {
      name: 'a Secret the control plane controls, another UID recorded (made after the operator created its own)',
      of: recording,
      secret: secret('uid-now', 'secret-uid-forged'),
      ownership: 'replaced',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    {
      name: 'a Secret the control plane controls, no UID recorded, the status reference of an earlier version naming it',
      of: earlier,
      secret: secret('uid-now', 'secret-uid-go'),
      ownership: 'earlier',
      status: 'True',
      reason: 'TokenSecretOwned',
    },
    {
      name: 'a Secret the control plane controls, no UID recorded, the status reference only the retry marker of a disable',
      of: disabling,
      secret: secret('uid-now', 'secret-uid-forged'),
      ownership: 'unrecorded',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    {
      name: 'a Secret the control plane controls, made before the operator recorded anything (a new control plane)',
      of: cp,
      secret: secret('uid-now', 'secret-uid-forged'),
      ownership: 'unrecorded',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    {
      name: 'a Secret of an earlier control plane of the same name',
      of: recording,
      secret: secret('uid-before'),
      ownership: 'foreign',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
    {
      name: 'a Secret nobody controls',
      of: earlier,
      secret: secret(),
      ownership: 'foreign',
      status: 'False',
      reason: 'TokenSecretNotOwned',
    },
  ] as const;
  for (const row of rows) {
    it(`treats ${row.name} as ${row.ownership}: OperatorTokenSecretOwned ${row.status} ${row.reason}`, () => {
      const ownership = tokenSecretOwnership(row.of, row.secret);
      assert.equal(ownership, row.ownership);
      const condition = ownershipCondition(row.of, ownership, row.secret);
      assert.deepEqual([condition.type, condition.status, condition.reason], ['OperatorTokenSecretOwned', row.status, row.reason]);
      assert.match(condition.message, /Secret "coder\/coder-operator-token"/);
    });
  }

  it('names both UIDs and the fix for a Secret that is not the one it created', () => {
    const message = ownershipCondition(recording, 'replaced', secret('uid-now', 'secret-uid-forged')).message;
    assert.match(message, /its UID secret-uid-forged is not the one in status\.operatorTokenSecretUID \(secret-uid-mine\)/);
    assert.match(message, /Delete it: the controller then creates its own Secret/);
  });

  it('tells the user how to get out of a foreign Secret, without reading it', () => {
    assert.match(ownershipCondition(cp, 'foreign').message, /does not read, change or adopt it.*generatedTokenSecretName/s);
  });

  it("counts every annotation but the operator's own and Kubernetes' as foreign, and its own keys with another value", () => {
    const annotated = secret('uid-now', 'secret-uid-mine', {
      'reflector.v1.k8s.emberstack.com/reflection-allowed': 'true',
      'kubed.appscode.com/sync': '',
      description: 'mine',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'example.k8s.io/note': 'x',
    });
    assert.deepEqual(foreignAnnotations(recording, annotated), [
      'description',
      'kubed.appscode.com/sync',
      'reflector.v1.k8s.emberstack.com/reflection-allowed',
    ]);
    assert.deepEqual(foreignAnnotations(recording, secret('uid-now')), [], 'the marks the operator sets are not foreign');
    const widened = secret('uid-now', 'secret-uid-mine', {
      'coder.com/credential-destinations': 'codercontrolplane/coder, coderprovisioner/*',
    });
    assert.deepEqual(foreignAnnotations(recording, widened), ['coder.com/credential-destinations']);
    const condition = foreignAnnotationsCondition(recording, ['reflector.v1.k8s.emberstack.com/reflection-allowed']);
    assert.deepEqual([condition.status, condition.reason], ['False', 'ForeignAnnotations']);
    assert.match(condition.message, /reflector\.v1\.k8s\.emberstack\.com\/reflection-allowed\. .*revokes its token.*Remove them/);
  });

  it('creates the Secret controlled by the control plane, marked as a credential for it alone', () => {
    const built = buildTokenSecret(cp, 'the-token');
    assert.deepEqual(built.metadata?.ownerReferences, [controllerOwnerReference(coderControlPlaneResource, cp)]);
    assert.equal(built.metadata?.labels?.['coder.com/credential'], 'true');
    assert.equal(built.metadata?.annotations?.['coder.com/credential-destinations'], 'codercontrolplane/coder');
    assert.equal(built.metadata?.labels?.['coder.com/operator-token'], 'true');
    assert.equal(built.metadata?.annotations?.['coder.com/operator-token-owner'], 'uid-now');
    assert.deepEqual(foreignAnnotations(cp, built), [], 'the Secret the operator builds carries only its own annotations');
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
