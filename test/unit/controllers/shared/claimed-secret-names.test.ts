import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keySecretRef } from '../../../../src/controllers/coderprovisioner/desired/names.ts';
import { tokenSecretName } from '../../../../src/controllers/coderworkspaceproxy/desired/names.ts';
import { secretNameClaim } from '../../../../src/controllers/shared/claimed-secret-names.ts';
import { operatorTokenSecretName } from '../../../../src/controlplane/endpoints.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';
import { aProvisioner } from '../../../fixtures/coderprovisioner.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const long = `team-${'x'.repeat(250)}`;

describe('Secret names claimed by a kind', () => {
  it("covers every default Secret name of each kind's naming scheme, hashed ones too", () => {
    const claimed = (name: string) => secretNameClaim(name)?.kind;
    for (const name of ['coder', long.slice(0, 63)]) {
      assert.equal(claimed(operatorTokenSecretName(aControlPlane(name).build())), 'CoderControlPlane', name);
    }
    for (const name of ['x', long]) {
      assert.equal(claimed(keySecretRef(aProvisioner(name).build()).name), 'CoderProvisioner', name);
      assert.equal(claimed(tokenSecretName(aWorkspaceProxy(name).build())), 'CoderWorkspaceProxy', name);
    }
  });

  it('leaves names that only contain a suffix, or are the bare word, unclaimed', () => {
    for (const name of ['gateway-key', 'x-operator-token-copy', 'provisioner-key', 'proxy-token', 'my-operator-tokens']) {
      assert.equal(secretNameClaim(name), undefined, name);
    }
  });
});
