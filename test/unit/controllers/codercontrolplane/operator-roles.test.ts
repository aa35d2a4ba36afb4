import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coderAIGatewayKeyResource } from '../../../../generated/clients/coderaigatewaykey.ts';
import { coderProvisionerResource } from '../../../../generated/clients/coderprovisioner.ts';
import { coderTemplateTestResource } from '../../../../generated/clients/codertemplatetest.ts';
import { coderWorkspaceProxyResource } from '../../../../generated/clients/coderworkspaceproxy.ts';
import {
  chooseOperatorRoles,
  describeChoice,
  ownerDependentKinds,
  sameDatabase,
  type ControlPlaneDependent,
} from '../../../../src/controllers/codercontrolplane/operator-roles.ts';
import type { ResourceKind } from '../../../../src/runtime/resource.ts';
import { aControlPlane } from '../../../fixtures/codercontrolplane.ts';

const cp = aControlPlane('coder').inNamespace('team').build();
const obj = (name: string, spec: ControlPlaneDependent['spec'], namespace = 'team'): ControlPlaneDependent => ({
  metadata: { name, namespace },
  spec,
});
const choose = (dependents: [ResourceKind, ControlPlaneDependent[]][], controlPlane = cp) =>
  chooseOperatorRoles(controlPlane, new Map(dependents));

describe('chooseOperatorRoles', () => {
  it('gives organization-admin in every organization, and no site role, to a control plane nothing needs owner for', () => {
    const choice = choose([]);
    assert.deepEqual(choice, { roles: { site: [], organization: ['organization-admin'] }, neededBy: [] });
    assert.match(describeChoice(choice), /^organization-admin in every organization/);
  });

  it('gives owner, and no organization role, to a control plane with a license Secret', () => {
    const licensed = aControlPlane('coder')
      .inNamespace('team')
      .withSpec({ licenseSecretRef: { name: 'lic', key: 'jwt' } })
      .build();
    assert.deepEqual(choose([], licensed), { roles: { site: ['owner'], organization: [] }, neededBy: ['spec.licenseSecretRef'] });
  });

  it('gives owner while a workspace proxy, template test or AI kind in its namespace names it, whatever else exists', () => {
    const choice = choose([
      [coderWorkspaceProxyResource, [obj('eu', { controlPlaneRef: { name: 'coder' } }), obj('us', { controlPlaneRef: { name: 'other' } })]],
      [coderTemplateTestResource, [obj('smoke', { controlPlaneRef: { name: 'coder' } })]],
      [coderAIGatewayKeyResource, [obj('key', { controlPlaneRef: { name: 'coder' } }, 'elsewhere')]],
    ]);
    assert.deepEqual(choice.roles, { site: ['owner'], organization: [] });
    assert.deepEqual(choice.neededBy, ['CoderTemplateTest smoke', 'CoderWorkspaceProxy eu']);
    assert.equal(describeChoice(choice), 'site role owner (needed by CoderTemplateTest smoke, CoderWorkspaceProxy eu)');
  });

  it('does not count a proxy registered with its own token, one naming another control plane, or one in another namespace', () => {
    const choice = choose([
      [
        coderWorkspaceProxyResource,
        [
          obj('own-token', { bootstrap: { coderURL: 'https://coder.example.com' } } as ControlPlaneDependent['spec']),
          obj('other', { controlPlaneRef: { name: 'other' } }),
          obj('elsewhere', { controlPlaneRef: { name: 'coder' } }, 'team-b'),
          obj('odd', { controlPlaneRef: 'coder' } as unknown as ControlPlaneDependent['spec']),
        ],
      ],
    ]);
    assert.deepEqual(choice.roles, { site: [], organization: ['organization-admin'] });
  });

  it('shortens a long list of needs in the message', () => {
    const proxies = ['a', 'b', 'c', 'd', 'e'].map((n) => obj(n, { controlPlaneRef: { name: 'coder' } }));
    assert.equal(
      describeChoice(choose([[coderWorkspaceProxyResource, proxies]])),
      'site role owner (needed by CoderWorkspaceProxy a, CoderWorkspaceProxy b, CoderWorkspaceProxy c and 2 more)',
    );
  });

  it('watches exactly the five kinds whose Coder calls need owner, not CoderProvisioner', () => {
    assert.deepEqual(ownerDependentKinds.map((k) => k.kind).sort(), [
      'CoderAIGatewayKey',
      'CoderAIProvider',
      'CoderMCPServer',
      'CoderTemplateTest',
      'CoderWorkspaceProxy',
    ]);
    assert.ok(!ownerDependentKinds.includes(coderProvisionerResource));
  });

  it('makes the user owner for a control plane that shares its database with one that needs owner, naming that one', () => {
    const other = aControlPlane('coder').inNamespace('team-b').build();
    const proxy: [ResourceKind, ControlPlaneDependent[]] = [
      coderWorkspaceProxyResource,
      [obj('eu', { controlPlaneRef: { name: 'coder' } }, 'team-b')],
    ];
    const choice = chooseOperatorRoles(cp, new Map(), [{ cp: other, dependents: new Map([proxy]) }]);
    assert.deepEqual(choice, { roles: { site: ['owner'], organization: [] }, neededBy: ['CoderControlPlane team-b/coder'] });
    const idle = chooseOperatorRoles(cp, new Map(), [{ cp: other, dependents: new Map() }]);
    assert.deepEqual(idle.roles, { site: [], organization: ['organization-admin'] });
  });
});

describe('sameDatabase', () => {
  const url = 'postgres://coder:secret@db.example.com:5432/coder?sslmode=disable';
  it('holds for the same host, port, database and credentials, however the URL is spelled', () => {
    assert.ok(sameDatabase(url, 'postgresql://coder:secret@DB.example.com/coder?sslmode=disable'));
  });
  for (const [what, other] of [
    ['another database', 'postgres://coder:secret@db.example.com:5432/other?sslmode=disable'],
    ['another host', 'postgres://coder:secret@db2.example.com:5432/coder?sslmode=disable'],
    ['another password (whoever lacks it cannot widen the user)', 'postgres://coder:guess@db.example.com:5432/coder?sslmode=disable'],
    ['another search_path', 'postgres://coder:secret@db.example.com:5432/coder?sslmode=disable&options=-c%20search_path%3Dother'],
    ['a URL the operator refuses', 'postgres://coder:secret@db.example.com:5432/coder?sslrootcert=/etc/passwd'],
  ] as const) {
    it(`does not hold for ${what}`, () => assert.equal(sameDatabase(url, other), false));
  }
});
