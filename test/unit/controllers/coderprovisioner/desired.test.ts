import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDeployment, keyChecksumAnnotation, podCoderURL } from '../../../../src/controllers/coderprovisioner/desired/deployment.ts';
import { secretsReferencedBy } from '../../../../src/controllers/shared/workload/pod-spec.ts';
import { buildKeySecret, keyWriteToUserSecret } from '../../../../src/controllers/coderprovisioner/desired/key-secret.ts';
import {
  hashedName,
  keyName,
  keySecretRef,
  organizationName,
  serviceAccountName,
  tagsHash,
  tagsOf,
  workloadName,
} from '../../../../src/controllers/coderprovisioner/desired/names.ts';
import { buildRole, buildRoleBinding, buildServiceAccount } from '../../../../src/controllers/coderprovisioner/desired/rbac.ts';
import { fnv32a } from '../../../../src/runtime/object-names.ts';
import { SpecError } from '../../../../src/controllers/shared/spec-check.ts';
import { operatorApiURL, statusURL } from '../../../../src/controlplane/endpoints.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';
import { aProvisioner } from '../../../fixtures/coderprovisioner.ts';

const inputs = { coderURL: 'http://coder.coder.svc.cluster.local:80', defaultImage: 'ghcr.io/coder/coder:v2.30.0', keyID: 'key-id-1' };
const owner = {
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderProvisioner',
  name: 'eu',
  uid: 'uid-eu',
  controller: true,
  blockOwnerDeletion: true,
};
const labels = {
  'app.kubernetes.io/name': 'coder-provisioner',
  'app.kubernetes.io/instance': 'eu',
  'app.kubernetes.io/managed-by': 'coder-k8s',
};

describe('CoderProvisioner names and defaults', () => {
  it('defaults the organization, key name, Secret and key as the Go original does', () => {
    const p = aProvisioner('eu').inNamespace('coder').build();
    assert.equal(organizationName(p), 'default');
    assert.equal(keyName(p), 'eu');
    assert.deepEqual(keySecretRef(p), { name: 'eu-provisioner-key', key: 'key' });
    assert.equal(workloadName(p), 'provisioner-eu');
    assert.equal(serviceAccountName(p), 'eu-provisioner');
  });

  it('takes spec.organizationName and spec.key as given', () => {
    const p = aProvisioner('eu')
      .withSpec({ organizationName: 'acme', key: { name: 'k', secretName: 's', secretKey: 'v' } })
      .build();
    assert.equal(organizationName(p), 'acme');
    assert.equal(keyName(p), 'k');
    assert.deepEqual(keySecretRef(p), { name: 's', key: 'v' });
  });

  it('fits long names with the FNV-1a hash of the whole name, so names that share a start stay apart', () => {
    const long = 'a'.repeat(70);
    const name = workloadName(aProvisioner(long).build());
    assert.equal(name.length, 63);
    assert.ok(name.startsWith('provisioner-a') && name.endsWith(`-${fnv32a(long)}`));
    assert.notEqual(name, workloadName(aProvisioner(`${'a'.repeat(69)}b`).build()));
    assert.equal(keyName(aProvisioner(long).build()).length, 64);
    assert.equal(hashedName('x-', 'short', '-y', 63), 'x-short-y');
  });

  it('hashes the tags in key order, so their order in the manifest does not rotate the key', () => {
    const a = tagsOf(
      aProvisioner()
        .withSpec({ tags: { zone: 'a', arch: 'amd64' } })
        .build(),
    );
    const b = tagsOf(
      aProvisioner()
        .withSpec({ tags: { arch: 'amd64', zone: 'a' } })
        .build(),
    );
    assert.equal(tagsHash(a), tagsHash(b));
    assert.notEqual(tagsHash(a), tagsHash({ zone: 'b', arch: 'amd64' }));
    assert.equal(tagsHash({}), fnv32a(''));
  });
});

describe('CoderProvisioner key Secret', () => {
  const p = aProvisioner('eu').inNamespace('coder').build();

  it('marks a Secret the operator creates as a credential for this provisioner and makes it the controller owner', () => {
    const secret = buildKeySecret(p, { name: 'eu-provisioner-key', key: 'key' }, 'the-key');
    assert.deepEqual(secret.metadata, {
      name: 'eu-provisioner-key',
      namespace: 'coder',
      labels: { ...labels, 'coder.com/credential': 'true' },
      annotations: { 'coder.com/credential-destinations': 'coderprovisioner/eu' },
      ownerReferences: [owner],
    });
    assert.equal(secret.type, 'Opaque');
    assert.deepEqual(secret.data, { key: Buffer.from('the-key').toString('base64') });
  });

  it("writes only the key and its writer into a user's marked Secret: no owner reference, no labels", () => {
    const mine = {
      metadata: { name: 'mine', namespace: 'coder', annotations: { 'coder.com/credential-written-by': 'token=coderworkspaceproxy/eu' } },
    };
    assert.deepEqual(keyWriteToUserSecret(p, { name: 'mine', key: 'k' }, 'the-key', mine), {
      metadata: { annotations: { 'coder.com/credential-written-by': 'token=coderworkspaceproxy/eu,k=coderprovisioner/eu' } },
      data: { k: Buffer.from('the-key').toString('base64') },
    });
  });
});

describe('CoderProvisioner ServiceAccount and RBAC', () => {
  const p = aProvisioner('eu').inNamespace('coder').build();

  it('lets the daemons manage pods and volumes through a Role bound to their ServiceAccount', () => {
    assert.deepEqual(buildServiceAccount(p).metadata, { name: 'eu-provisioner', namespace: 'coder', labels, ownerReferences: [owner] });
    assert.deepEqual(buildRole(p).rules, [
      {
        apiGroups: [''],
        resources: ['pods', 'persistentvolumeclaims'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
    ]);
    const binding = buildRoleBinding(p);
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'provisioner-eu' });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'eu-provisioner', namespace: 'coder' }]);
  });
});

describe('CoderProvisioner Deployment', () => {
  it('runs coder provisioner start against status.url with the key from its Secret, then extraEnv', () => {
    const p = aProvisioner('eu')
      .inNamespace('coder')
      .withSpec({ extraArgs: ['--verbose'], extraEnv: [{ name: 'TF_LOG', value: 'info' }] })
      .build();
    const d = buildDeployment(p, inputs);
    assert.equal(d.metadata!.name, 'provisioner-eu');
    assert.deepEqual(d.metadata!.ownerReferences, [owner]);
    assert.equal(d.spec!.replicas, 1);
    assert.deepEqual(d.spec!.selector.matchLabels, labels);
    const pod = d.spec!.template.spec!;
    assert.equal(pod.serviceAccountName, 'eu-provisioner');
    assert.equal(pod.terminationGracePeriodSeconds, 600);
    const c = pod.containers[0]!;
    assert.equal(c.image, 'ghcr.io/coder/coder:v2.30.0');
    assert.deepEqual(c.command, ['coder']);
    assert.deepEqual(c.args, ['provisioner', 'start', '--verbose']);
    assert.deepEqual(c.env, [
      { name: 'CODER_URL', value: 'http://coder.coder.svc.cluster.local:80' },
      { name: 'CODER_PROVISIONER_DAEMON_KEY', valueFrom: { secretKeyRef: { name: 'eu-provisioner-key', key: 'key' } } },
      { name: 'TF_LOG', value: 'info' },
    ]);
    assert.deepEqual(d.spec!.template.metadata!.annotations, { [keyChecksumAnnotation]: fnv32a('key-id-1') });
  });

  it('connects to the https status.url of a control plane with built-in TLS, not the plain HTTP URL the operator calls', () => {
    const cp = aControlPlane('coder').inNamespace('coder').withTls('coder-tls').build();
    cp.status = { url: statusURL(cp) };
    assert.equal(cp.status.url, 'https://coder.coder.svc.cluster.local:443');
    const d = buildDeployment(aProvisioner('eu').inNamespace('coder').build(), { ...inputs, coderURL: podCoderURL(cp) });
    const coderURL = d.spec!.template.spec!.containers[0]!.env!.find((e) => e.name === 'CODER_URL');
    assert.deepEqual(coderURL, { name: 'CODER_URL', value: 'https://coder.coder.svc.cluster.local:443' });
    assert.notEqual(coderURL?.value, operatorApiURL(cp));
  });

  it('passes replicas, image, resources and the scheduling fields through, and keeps a rollout restart', () => {
    const p = aProvisioner('eu')
      .withSpec({
        replicas: 3,
        image: 'example.com/coder:custom',
        terminationGracePeriodSeconds: 30,
        resources: { limits: { cpu: '2' } },
        imagePullSecrets: [{ name: 'pull' }],
        nodeSelector: { pool: 'builders' },
        tolerations: [{ key: 'builders', operator: 'Exists' }],
        affinity: { nodeAffinity: {} },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }],
        podSecurityContext: { runAsNonRoot: true },
        securityContext: { readOnlyRootFilesystem: true },
      })
      .build();
    const d = buildDeployment(p, { ...inputs, restartedAt: '2026-12-01T00:00:00Z' });
    const pod = d.spec!.template.spec!;
    assert.equal(d.spec!.replicas, 3);
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.deepEqual(pod.imagePullSecrets, [{ name: 'pull' }]);
    assert.deepEqual(pod.nodeSelector, { pool: 'builders' });
    assert.deepEqual(pod.tolerations, [{ key: 'builders', operator: 'Exists' }]);
    assert.deepEqual(pod.affinity, { nodeAffinity: {} });
    assert.equal(pod.topologySpreadConstraints!.length, 1);
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true });
    assert.equal(pod.containers[0]!.image, 'example.com/coder:custom');
    assert.deepEqual(pod.containers[0]!.resources, { limits: { cpu: '2' } });
    assert.deepEqual(pod.containers[0]!.securityContext, { readOnlyRootFilesystem: true });
    assert.equal(d.spec!.template.metadata!.annotations!['kubectl.kubernetes.io/restartedAt'], '2026-12-01T00:00:00Z');
  });

  it('changes the pod template when the key changes, so the daemons restart with the new key', () => {
    const p = aProvisioner('eu').build();
    assert.notDeepEqual(buildDeployment(p, inputs).spec!.template, buildDeployment(p, { ...inputs, keyID: 'key-id-2' }).spec!.template);
  });

  it('refuses extraEnv that sets an operator variable or one variable twice, naming the field', () => {
    const setsUrl = aProvisioner('eu')
      .withSpec({ extraEnv: [{ name: 'CODER_URL', value: 'http://elsewhere' }] })
      .build();
    assert.throws(
      () => buildDeployment(setsUrl, inputs),
      (err: unknown) => err instanceof SpecError && err.field === 'spec.extraEnv[0]',
    );
    const twice = aProvisioner('eu')
      .withSpec({
        extraEnv: [
          { name: 'A', value: '1' },
          { name: 'A', value: '2' },
        ],
      })
      .build();
    assert.throws(
      () => buildDeployment(twice, inputs),
      (err: unknown) => err instanceof SpecError && err.field === 'spec.extraEnv[1]',
    );
  });

  it('lists the Secrets a pod template hands to its containers', () => {
    const d: V1Deployment = buildDeployment(
      aProvisioner('eu')
        .withSpec({ extraEnv: [{ name: 'AWS_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 'aws', key: 'secret' } } }] })
        .build(),
      inputs,
    );
    assert.deepEqual([...secretsReferencedBy(d)].sort(), ['aws', 'eu-provisioner-key']);
    assert.deepEqual([...secretsReferencedBy(undefined)], []);
  });
});
