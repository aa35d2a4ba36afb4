import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { aCoderTemplate, aCoderWorkspace } from '../../fixtures/coder-api-objects.ts';
import type { CoderApiDoubleState } from '../../harness/coder-api-double.ts';
import { initialState } from '../../harness/coder-api-double/state.ts';
import { workspaceHandlers } from '../../harness/coder-api-double/workspace-handlers.ts';

describe('the Coder API double lists the workspaces and templates of its one world', () => {
  let state: CoderApiDoubleState;
  const list = (q: string) => workspaceHandlers.listWorkspaces!({ state, params: { q }, body: undefined, user: state.users[0] });
  const names = (q: string) =>
    (list(q).body as { workspaces: { owner_name: string; name: string }[] }).workspaces.map((w) => `${w.owner_name}/${w.name}`);

  beforeEach(() => {
    state = initialState([]);
    const starter = aCoderTemplate(state, 'coder', 'starter');
    aCoderWorkspace(state, { owner: 'alice', name: 'dev', template: starter });
    aCoderWorkspace(state, { owner: 'alice', name: 'Scratch', template: starter });
    aCoderWorkspace(state, { owner: 'bob', name: 'dev', template: aCoderTemplate(state, 'other', 'base'), transition: 'start' });
  });

  it('filters by owner, organization, template and a part of the name, and leaves deleted workspaces out', () => {
    assert.deepEqual(names(''), ['bob/dev', 'alice/dev', 'alice/Scratch'], 'running ones first, then by owner and name');
    assert.deepEqual(names('owner:alice'), ['alice/dev', 'alice/Scratch']);
    assert.deepEqual(names('organization:other'), ['bob/dev']);
    assert.deepEqual(names('template:STARTER scr'), ['alice/Scratch']);
    assert.deepEqual(names('status:running'), ['bob/dev']);
    assert.deepEqual(names('owner:carol'), [], 'an unknown owner matches nothing');
    assert.deepEqual(names(`owner:${state.users.find((u) => u.username === 'bob')!.id}`), [], 'Coder matches owners by username only');
    assert.deepEqual(names('bob/DEV'), ['bob/dev'], 'a bare owner/name');
    state.world.workspaces[0]!.deleted = true;
    assert.deepEqual(names('name:dev'), ['bob/dev']);
    assert.equal((list('').body as { count: number }).count, 2);
  });

  it('refuses an unknown query key with a 400 naming it, and says which keys Coder knows that the double does not filter on', () => {
    const answer = list('colour:red');
    assert.equal(answer.status, 400);
    assert.match(JSON.stringify(answer.body), /\\"colour\\" is not a valid query param/);
    assert.match(JSON.stringify(list('has-agent:connected').body), /the Coder API double does not filter workspaces on \\"has-agent\\"/);
  });

  it('answers one page and the count of all matches', () => {
    const page = workspaceHandlers.listWorkspaces!({
      state,
      params: { q: '', limit: 1, offset: 1 },
      body: undefined,
      user: state.users[0],
    });
    const body = page.body as { workspaces: { name: string }[]; count: number };
    assert.deepEqual(
      body.workspaces.map((w) => w.name),
      ['dev'],
    );
    assert.equal(body.count, 3);
  });

  it('answers workspaces with their organization and owner as seeded, members of the organization', () => {
    const [bobs] = (list('owner:bob').body as { workspaces: Record<string, any>[] }).workspaces;
    assert.equal(bobs!.organization_name, 'other');
    assert.equal(bobs!.latest_build.status, 'running');
    const bob = state.users.find((u) => u.username === 'bob')!;
    assert.deepEqual(
      state.world.members.filter((m) => m.user_id === bob.id).map((m) => m.organization_id),
      [bobs!.organization_id],
    );
  });

  it("lists every template in Coder's order (by name) and reads one by name in the default organization", () => {
    const templates = workspaceHandlers.listTemplates!({ state, params: {}, body: undefined }).body as { name: string }[];
    assert.deepEqual(
      templates.map((t) => t.name),
      ['base', 'starter'],
    );
    const byName = workspaceHandlers.getTemplateByName!({
      state,
      params: { organization: 'default', templateName: 'starter' },
      body: undefined,
    });
    assert.equal(byName.status, 200);
    assert.equal((byName.body as { organization_name: string }).organization_name, 'coder');
  });

  it('deletes a template only once no live workspace was made from it', () => {
    const remove = (template: string) => workspaceHandlers.deleteTemplate!({ state, params: { template }, body: undefined });
    const base = state.world.templates.find((t) => t.name === 'base')!;
    assert.equal(remove(base.id).status, 400);
    state.world.workspaces.find((w) => w.workspace.template_id === base.id)!.deleted = true;
    assert.equal(remove(base.id).status, 200);
    assert.equal(remove(base.id).status, 404);
    assert.equal(workspaceHandlers.getTemplate!({ state, params: { template: base.id }, body: undefined }).status, 404);
  });
});
