import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCredentialSecrets } from '../../../../src/controllers/coderprovisioner/credential-secrets.ts';
import { keyCallNeeded, keyDrift } from '../../../../src/controllers/coderprovisioner/key-step.ts';
import { tagsHash } from '../../../../src/controllers/coderprovisioner/desired/names.ts';
import { aProvisioner } from '../../../fixtures/coderprovisioner.ts';

const value = 'aws-secret-DO-NOT-LEAK';
const secret = (
  name: string,
  marks: { label?: boolean; destinations?: string; data?: Record<string, string>; ownerUid?: string } = {},
): V1Secret => ({
  metadata: {
    name,
    namespace: 'coder',
    ...(marks.label ? { labels: { 'coder.com/credential': 'true' } } : {}),
    ...(marks.destinations ? { annotations: { 'coder.com/credential-destinations': marks.destinations } } : {}),
    ...(marks.ownerUid
      ? {
          ownerReferences: [
            { apiVersion: 'coder.com/v1alpha1', kind: 'CoderProvisioner', name: 'eu', uid: marks.ownerUid, controller: true },
          ],
        }
      : {}),
  },
  data: Object.fromEntries(Object.entries(marks.data ?? { secret: value }).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const withAws = aProvisioner('eu')
  .inNamespace('coder')
  .withSpec({ extraEnv: [{ name: 'AWS_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 'aws', key: 'secret' } } }] })
  .build();
const lookup =
  (...secrets: V1Secret[]) =>
  (name: string) =>
    secrets.find((s) => s.metadata!.name === name);

describe('the credential rule for a provisioner', () => {
  const rows: [string, V1Secret | undefined, string][] = [
    ['an unmarked Secret', secret('aws'), 'NotMarkedAsCredential'],
    [
      'a marked Secret for another provisioner',
      secret('aws', { label: true, destinations: 'coderprovisioner/us' }),
      'DestinationNotListed',
    ],
    ['a marked Secret for another kind', secret('aws', { label: true, destinations: 'coderworkspaceproxy/*' }), 'DestinationNotListed'],
    ['a missing Secret', undefined, 'SecretNotFound'],
    [
      'a marked Secret without the key',
      secret('aws', { label: true, destinations: 'coderprovisioner/eu', data: { other: 'x' } }),
      'KeyNotFound',
    ],
  ];
  for (const [name, aws, reason] of rows) {
    it(`refuses ${name} in extraEnv with ${reason}, naming the Secret and never its value`, () => {
      const check = checkCredentialSecrets(withAws, lookup(...(aws ? [aws] : [])));
      assert.equal(check.condition.status, 'False');
      assert.equal(check.condition.reason, reason);
      assert.match(check.condition.message, /Secret "coder\/aws"/);
      assert.ok(!check.condition.message.includes(value));
      assert.deepEqual([...check.refused], ['aws']);
    });
  }

  for (const destinations of ['coderprovisioner/eu', 'coderprovisioner/*', 'coderworkspaceproxy/x, coderprovisioner/eu']) {
    it(`accepts a marked Secret listing ${destinations}`, () => {
      const check = checkCredentialSecrets(withAws, lookup(secret('aws', { label: true, destinations })));
      assert.equal(check.condition.reason, 'CredentialAccepted');
      assert.deepEqual(check.keySecret, { kind: 'absent' });
      assert.equal(check.refused.size, 0);
    });
  }

  it('refuses an existing unmarked key Secret before anything is read from or written to it', () => {
    const p = aProvisioner('eu')
      .inNamespace('coder')
      .withSpec({ key: { secretName: 'mine' } })
      .build();
    const check = checkCredentialSecrets(p, lookup(secret('mine', { data: { key: 'k' } })));
    assert.equal(check.condition.reason, 'NotMarkedAsCredential');
    assert.equal(check.keySecret, undefined);
    assert.deepEqual([...check.refused], ['mine']);
  });

  it('uses a key Secret it created, and a marked one it did not, reading the key only then', () => {
    const p = aProvisioner('eu').inNamespace('coder').build();
    const owned = checkCredentialSecrets(p, lookup(secret('eu-provisioner-key', { ownerUid: 'uid-eu', data: { key: ' k1\n' } })));
    assert.deepEqual(owned.keySecret, { kind: 'usable', created: true, key: 'k1' });
    const marked = checkCredentialSecrets(
      p,
      lookup(secret('eu-provisioner-key', { label: true, destinations: 'coderprovisioner/eu', data: {} })),
    );
    assert.deepEqual(marked.keySecret, { kind: 'usable', created: false, key: '' });
  });
});

describe('writing the key into a Secret the provisioner did not create', () => {
  const keySecret = (annotations: Record<string, string> = {}): V1Secret => {
    const s = secret('shared', { label: true, destinations: 'coderprovisioner/*', data: { key: 'a-key-DO-NOT-LEAK' } });
    s.metadata!.annotations = { ...s.metadata!.annotations, ...annotations };
    return s;
  };
  const recorded = {
    organizationName: 'default',
    provisionerKeyName: 'b',
    provisionerKeyID: 'key-id-b',
    tagsHash: tagsHash({}),
    controlPlaneRefName: 'coder',
    secretRef: { name: 'shared', key: 'key' },
  };
  const b = aProvisioner('b')
    .inNamespace('coder')
    .withSpec({ controlPlaneRef: { name: 'coder' }, key: { secretName: 'shared' } })
    .build();

  it('refuses, before any Coder call, to replace a key a person or another provisioner put there; its pods may still read it', () => {
    for (const annotations of [{}, { 'coder.com/credential-written-by': 'key=coderprovisioner/a' }] as Record<string, string>[]) {
      const check = checkCredentialSecrets(b, lookup(keySecret(annotations)));
      assert.equal(check.condition.status, 'False');
      assert.equal(check.condition.reason, 'ValueNotOwned');
      assert.match(check.condition.message, /Secret "coder\/shared" \(key "key"\) holds a value that coderprovisioner\/b did not write/);
      assert.ok(!check.condition.message.includes('DO-NOT-LEAK'));
      assert.equal(check.keySecret, undefined);
      assert.equal(check.refused.size, 0);
    }
  });

  it('replaces a key it wrote: named by the written-by annotation, or recorded in its status with this Secret', () => {
    const annotated = checkCredentialSecrets(b, lookup(keySecret({ 'coder.com/credential-written-by': 'key=coderprovisioner/b' })));
    assert.equal(annotated.condition.reason, 'CredentialAccepted');
    const withRecord = aProvisioner('b')
      .inNamespace('coder')
      .withSpec({ controlPlaneRef: { name: 'coder' }, key: { secretName: 'shared' }, tags: { zone: 'new' } })
      .withStatus(recorded)
      .build();
    assert.ok(keyCallNeeded(withRecord, 'coder', 'a-key-DO-NOT-LEAK'), 'the tags changed: a new key is written');
    assert.equal(checkCredentialSecrets(withRecord, lookup(keySecret())).condition.reason, 'CredentialAccepted');
    const recordedElsewhere = structuredClone(withRecord);
    recordedElsewhere.status!.secretRef = { name: 'elsewhere', key: 'key' };
    assert.equal(checkCredentialSecrets(recordedElsewhere, lookup(keySecret())).condition.reason, 'ValueNotOwned');
  });

  it('uses a key it does not replace: the status describes its key and nothing changed', () => {
    const settled = aProvisioner('b')
      .inNamespace('coder')
      .withSpec({ controlPlaneRef: { name: 'coder' }, key: { secretName: 'shared' } })
      .withStatus({ ...recorded, secretRef: { name: 'elsewhere', key: 'key' } })
      .build();
    const check = checkCredentialSecrets(settled, lookup(keySecret()));
    assert.equal(check.condition.reason, 'CredentialAccepted');
    assert.deepEqual(check.keySecret, { kind: 'usable', created: false, key: 'a-key-DO-NOT-LEAK' });
  });
});

describe('provisioner key drift', () => {
  it('rotates on a change of organization, key name, tags or control plane, and not before a key was recorded', () => {
    const applied = { organizationName: 'default', provisionerKeyName: 'eu', tagsHash: tagsHash({}), controlPlaneRefName: 'coder' };
    const p = (spec: object) => aProvisioner('eu').withSpec(spec).withStatus(applied).build();
    assert.deepEqual(keyDrift(p({}), 'coder'), []);
    assert.deepEqual(keyDrift(p({ tags: { zone: 'a' } }), 'coder'), ['tagsHash']);
    assert.deepEqual(keyDrift(p({ organizationName: 'acme', key: { name: 'other' } }), 'coder'), [
      'organizationName',
      'provisionerKeyName',
    ]);
    assert.deepEqual(keyDrift(p({}), 'coder-2'), ['controlPlaneRefName']);
    assert.deepEqual(
      keyDrift(
        aProvisioner('eu')
          .withSpec({ tags: { zone: 'a' } })
          .build(),
        'coder',
      ),
      [],
    );
  });
});
