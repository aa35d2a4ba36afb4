import type { V1Namespace } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { listsControlPlane, workspaceNamespaceConsent } from '../../../../src/controllers/codercontrolplane/workspace-namespace-consent.ts';

const cp: CoderControlPlane = {
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderControlPlane',
  metadata: { namespace: 'team-a', name: 'coder' },
};
const ns = (labels?: Record<string, string>, annotations?: Record<string, string>): V1Namespace => ({
  metadata: { name: 'workspaces', labels, annotations },
});
const marked = (annotation: string) =>
  ns({ 'coder.com/workspace-namespace': 'true' }, { 'coder.com/workspace-control-planes': annotation });

describe('workspaceNamespaceConsent', () => {
  it('needs no consent in the control plane namespace', () => {
    assert.deepEqual(workspaceNamespaceConsent(cp, 'team-a', undefined), { consented: true });
  });
  it('refuses a namespace that does not exist, naming it', () => {
    const c = workspaceNamespaceConsent(cp, 'workspaces', undefined);
    assert.equal(c.consented, false);
    assert.match(!c.consented ? c.message : '', /namespace "workspaces" does not exist/);
  });
  it('refuses without the label even when the annotation lists the control plane', () => {
    const c = workspaceNamespaceConsent(cp, 'workspaces', ns({}, { 'coder.com/workspace-control-planes': 'team-a/coder' }));
    assert.match(!c.consented ? c.message : '', /lacks the label coder\.com\/workspace-namespace=true/);
  });
  it('refuses when the label value is not "true"', () => {
    const c = workspaceNamespaceConsent(
      cp,
      'workspaces',
      ns({ 'coder.com/workspace-namespace': 'yes' }, { 'coder.com/workspace-control-planes': '*' }),
    );
    assert.equal(c.consented, false);
  });
  it('refuses when the annotation does not list the control plane, naming the entry to add', () => {
    const c = workspaceNamespaceConsent(cp, 'workspaces', marked('team-b/coder'));
    assert.match(!c.consented ? c.message : '', /does not list "team-a\/coder"/);
  });
  it('refuses a consenting namespace that is being deleted, where every create is refused', () => {
    for (const terminating of [
      { ...marked('*'), metadata: { ...marked('*').metadata, deletionTimestamp: new Date() } },
      { ...marked('*'), status: { phase: 'Terminating' } },
    ]) {
      const c = workspaceNamespaceConsent(cp, 'workspaces', terminating);
      assert.match(!c.consented ? c.message : '', /namespace "workspaces", which is being deleted/);
    }
  });
  for (const annotation of ['team-a/coder', ' other/x , team-a/coder ', '*', 'team-a/*']) {
    it(`consents when the annotation is "${annotation}"`, () => {
      assert.deepEqual(workspaceNamespaceConsent(cp, 'workspaces', marked(annotation)), { consented: true });
    });
  }
});

describe('listsControlPlane', () => {
  for (const annotation of ['coder', 'team-a', 'team-a/', '/coder', 'team-a/coder/x', 'Team-A/coder', 'team-b/*', '']) {
    it(`does not count "${annotation}"`, () => assert.equal(listsControlPlane(annotation, cp), false));
  }
  it('does not count a missing annotation', () => assert.equal(listsControlPlane(undefined, cp), false));
});
