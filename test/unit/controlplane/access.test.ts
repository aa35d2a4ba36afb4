import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { CoderClient } from '../../../src/coder/client.ts';
import { resolveControlPlane } from '../../../src/controlplane/access.ts';
import { controllerOwnerReference } from '../../../src/runtime/object-names.ts';
import { operatorTokenMarks } from '../../../src/controlplane/operator-token-marks.ts';
import { cacheOf } from '../../fixtures/cache.ts';
import { aControlPlane } from '../../fixtures/codercontrolplane.ts';

const ready = {
  url: 'http://coder.coder.svc.cluster.local:80',
  operatorAccessReady: true,
  operatorTokenSecretRef: { name: 'coder-operator-token', key: 'token' },
  operatorTokenSecretUID: 'token-secret-uid',
};
const readyControlPlane = () => aControlPlane('coder').inNamespace('coder').withStatus(ready);

function tokenSecret(owner: CoderControlPlane | undefined, token = 'operator-token-value', uid = 'token-secret-uid'): V1Secret {
  return {
    metadata: {
      name: 'coder-operator-token',
      namespace: 'coder',
      uid,
      ...(owner ? { ownerReferences: [controllerOwnerReference(coderControlPlaneResource, owner)] } : {}),
      ...(owner ? operatorTokenMarks(owner) : {}),
    },
    data: { token: Buffer.from(token).toString('base64') },
  };
}

const clients: { cp: string; token: string }[] = [];
const deps = {
  coderClient: (cp: CoderControlPlane, token: string) => {
    // A real client: building one checks the token.
    const client = new CoderClient({ baseURL: cp.status!.url!, token });
    clients.push({ cp: cp.metadata.name!, token });
    return client;
  },
};

function resolve(controlPlanes: CoderControlPlane[], secrets: V1Secret[], options: { ownerFor?: string } = {}) {
  const caches = { controlPlanes: cacheOf(...controlPlanes), secrets: cacheOf(...secrets) };
  return resolveControlPlane(deps, caches, 'coder', { name: 'coder' }, options);
}

describe('resolveControlPlane', () => {
  it('gives a Coder client with the token from the Secret the control plane controls', () => {
    const cp = readyControlPlane().build();
    clients.length = 0;
    const access = resolve([cp], [tokenSecret(cp, ' operator-token-value\n')]);
    assert.equal(access.usable, true);
    assert.deepEqual(clients, [{ cp: 'coder', token: 'operator-token-value' }]);
  });

  it('gives a kind that needs the owner role a client once the status says the operator user is owner', () => {
    const cp = aControlPlane('coder')
      .inNamespace('coder')
      .withStatus({ ...ready, operatorRole: 'owner' })
      .build();
    assert.equal(resolve([cp], [tokenSecret(cp)], { ownerFor: 'CoderMCPServer' }).usable, true);
  });

  const unusable: {
    name: string;
    controlPlanes: () => CoderControlPlane[];
    secrets: (cp?: CoderControlPlane) => V1Secret[];
    ownerFor?: string;
    reason: string;
    says: RegExp;
  }[] = [
    {
      name: 'a control plane that does not exist',
      controlPlanes: () => [],
      secrets: () => [],
      reason: 'ControlPlaneUnavailable',
      says: /"coder\/coder" \(spec.controlPlaneRef\) does not exist/,
    },
    {
      name: 'a control plane being deleted',
      controlPlanes: () => [readyControlPlane().deleting().build()],
      secrets: (cp) => [tokenSecret(cp)],
      reason: 'ControlPlaneUnavailable',
      says: /is being deleted/,
    },
    {
      name: 'a control plane without status.url',
      controlPlanes: () => [aControlPlane('coder').inNamespace('coder').build()],
      secrets: () => [],
      reason: 'ControlPlaneUnavailable',
      says: /no status.url/,
    },
    {
      name: 'a control plane without operator access',
      controlPlanes: () => [
        aControlPlane('coder')
          .inNamespace('coder')
          .withStatus({ ...ready, operatorAccessReady: false })
          .build(),
      ],
      secrets: (cp) => [tokenSecret(cp)],
      reason: 'OperatorAccessNotReady',
      says: /operatorAccessReady is not true/,
    },
    {
      name: 'a token Secret the control plane does not control',
      controlPlanes: () => [readyControlPlane().build()],
      secrets: () => [tokenSecret(undefined)],
      reason: 'OperatorAccessNotReady',
      says: /not controlled by it/,
    },
    {
      name: "a token Secret with a forged controller owner reference and the operator's marks, but not the UID the status records",
      controlPlanes: () => [readyControlPlane().build()],
      secrets: (cp) => [tokenSecret(cp, 'operator-token-value', 'forged-secret-uid')],
      reason: 'OperatorAccessNotReady',
      says: /not the one its status\.operatorTokenSecretUID records/,
    },
    {
      name: 'an organization-admin operator user, to a kind that needs the owner role',
      controlPlanes: () => [
        aControlPlane('coder')
          .inNamespace('coder')
          .withStatus({ ...ready, operatorRole: 'organization-admin' })
          .build(),
      ],
      secrets: (cp) => [tokenSecret(cp)],
      ownerFor: 'CoderMCPServer',
      reason: 'OperatorAccessNotReady',
      says: /operator user is organization-admin \(status\.operatorRole\), and a CoderMCPServer needs the Coder owner role/,
    },
    {
      name: 'a status without operatorRole (written by an earlier version), to a kind that needs the owner role',
      controlPlanes: () => [readyControlPlane().build()],
      secrets: (cp) => [tokenSecret(cp)],
      ownerFor: 'CoderTemplateTest',
      reason: 'OperatorAccessNotReady',
      says: /of no recorded role \(status\.operatorRole\), and a CoderTemplateTest needs/,
    },
    {
      name: 'an empty token',
      controlPlanes: () => [readyControlPlane().build()],
      secrets: (cp) => [tokenSecret(cp, '  ')],
      reason: 'OperatorAccessNotReady',
      says: /no value at key "token"/,
    },
    {
      name: 'a token of two lines, which the client refuses',
      controlPlanes: () => [readyControlPlane().build()],
      secrets: (cp) => [tokenSecret(cp, 'operator-token-value\noperator-token-value-2')],
      reason: 'OperatorAccessNotReady',
      says: /its token Secret "coder-operator-token" holds a value at key "token" with a space, line break/,
    },
  ];
  for (const row of unusable) {
    it(`reports ${row.reason} for ${row.name}, and builds no client`, () => {
      clients.length = 0;
      const controlPlanes = row.controlPlanes();
      const access = resolve(controlPlanes, row.secrets(controlPlanes[0]), row.ownerFor ? { ownerFor: row.ownerFor } : {});
      assert.equal(access.usable, false);
      if (access.usable) return;
      assert.equal(access.reason, row.reason);
      assert.match(access.message, row.says);
      assert.doesNotMatch(access.message, /operator-token-value/);
      assert.deepEqual(clients, []);
    });
  }
});
