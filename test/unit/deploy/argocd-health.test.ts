// The Argo CD health check of CoderTemplateTest, run in a real Lua VM (wasmoon, Lua 5.4; Argo CD runs
// gopher-lua 5.1, and the script keeps to what both share), and the argocd-cm patch that carries it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LuaFactory, type LuaEngine } from 'wasmoon';
import { parse } from 'yaml';

const script = readFileSync('deploy/argocd/codertemplatetest-health.lua', 'utf8');
const key = 'resource.customizations.health.coder.com_CoderTemplateTest';

describe('deploy/argocd: CoderTemplateTest health', () => {
  let lua: LuaEngine;
  before(async () => {
    lua = await new LuaFactory().createEngine();
  });
  after(() => lua?.global.close());

  const health = async (obj: object): Promise<{ status: string; message: string }> => {
    lua.global.set('obj', obj);
    return (await lua.doString(script)) as { status: string; message: string };
  };
  const ready = (status: string) => [{ type: 'Ready', status, reason: 'x', message: '' }];
  const test = (status?: object, metadata: object = {}) => ({
    metadata: { name: 't', generation: 1, ...metadata },
    ...(status ? { status } : {}),
  });

  const rows: { name: string; obj: object; status: string; message: string }[] = [
    { name: 'no status yet', obj: test(), status: 'Progressing', message: 'Waiting for the controller' },
    {
      name: 'a stale observedGeneration',
      obj: test({ observedGeneration: 1, phase: 'Failed' }, { generation: 2 }),
      status: 'Progressing',
      message: 'Waiting for the controller',
    },
    {
      name: 'being deleted',
      obj: test({ observedGeneration: 1, phase: 'Succeeded' }, { deletionTimestamp: '2026-12-01T10:00:00Z' }),
      status: 'Progressing',
      message: 'Deleting the test workspace',
    },
    {
      name: 'running',
      obj: test({
        observedGeneration: 1,
        phase: 'Running',
        reason: 'WaitingForAgents',
        message: 'Agent a is connecting.',
        conditions: ready('False'),
      }),
      status: 'Progressing',
      message: 'WaitingForAgents: Agent a is connecting.',
    },
    {
      name: 'succeeded',
      obj: test({ observedGeneration: 1, phase: 'Succeeded', reason: 'Succeeded', message: 'done', conditions: ready('True') }),
      status: 'Healthy',
      message: 'Succeeded: done',
    },
    {
      name: 'succeeded without Ready=True',
      obj: test({ observedGeneration: 1, phase: 'Succeeded', reason: 'Succeeded', message: 'done', conditions: [] }),
      status: 'Progressing',
      message: 'Succeeded: done',
    },
    {
      name: 'failed',
      obj: test({
        observedGeneration: 1,
        phase: 'Failed',
        reason: 'BuildFailed',
        message: 'The start build failed.',
        conditions: ready('False'),
      }),
      status: 'Degraded',
      message: 'BuildFailed: The start build failed.',
    },
  ];
  for (const row of rows) {
    it(`is ${row.status} when ${row.name}`, async () => {
      assert.deepEqual({ ...(await health(row.obj)) }, { status: row.status, message: row.message });
    });
  }

  it('ships the same script in the argocd-cm patch', () => {
    const patch = parse(readFileSync('deploy/argocd/argocd-cm-patch.yaml', 'utf8')) as { data: Record<string, string> };
    assert.equal(patch.data[key], script);
  });
});
