// examples/argocd: the health check of the coder.com kinds with Ready and Stalled, run in a real Lua VM
// (wasmoon, Lua 5.4; Argo CD runs gopher-lua 5.1, and the script keeps to what both share), and the argocd-cm
// patch that carries it under each such kind's key.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LuaFactory, type LuaEngine } from 'wasmoon';
import { parse } from 'yaml';

const script = readFileSync('examples/argocd/health.lua', 'utf8');

describe('examples/argocd: health of the coder.com kinds', () => {
  let lua: LuaEngine;
  before(async () => {
    lua = await new LuaFactory().createEngine();
  });
  after(() => lua?.global.close());

  const health = async (obj: object): Promise<{ status: string; message: string }> => {
    lua.global.set('obj', obj);
    return { ...((await lua.doString(script)) as { status: string; message: string }) };
  };
  const condition = (type: string, status: string, reason: string, message = '') => ({ type, status, reason, message });
  const object = (conditions?: object[], observedGeneration = 1, generation = 1) => ({
    metadata: { name: 'coder', generation },
    ...(conditions ? { status: { observedGeneration, conditions } } : {}),
  });

  const rows: { name: string; obj: object; status: string; message: string }[] = [
    { name: 'it has no status yet', obj: object(), status: 'Progressing', message: 'Waiting for the controller' },
    {
      name: 'Ready is True',
      obj: object([condition('Ready', 'True', 'Available', 'Coder serves.')]),
      status: 'Healthy',
      message: 'Available: Coder serves.',
    },
    {
      name: 'Ready is False and Stalled True: only a person can help',
      obj: object([
        condition('Ready', 'False', 'DatabaseSecretNotResolved', 'Secret "coder-db-app" not found.'),
        condition('Stalled', 'True', 'DatabaseSecretNotResolved', 'Secret "coder-db-app" not found.'),
      ]),
      status: 'Degraded',
      message: 'DatabaseSecretNotResolved: Secret "coder-db-app" not found.',
    },
    {
      name: 'Ready is False and nothing stalls: the operator is on it',
      obj: object([condition('Ready', 'False', 'DeploymentNotReady', 'No Coder pod is ready yet.'), condition('Stalled', 'False', 'x')]),
      status: 'Progressing',
      message: 'DeploymentNotReady: No Coder pod is ready yet.',
    },
    {
      name: 'Ready is True for an older generation',
      obj: object([condition('Ready', 'True', 'Available', 'Coder serves.')], 1, 2),
      status: 'Progressing',
      message: 'Waiting for the controller',
    },
    {
      name: 'Stalled is True for an older generation',
      obj: object([condition('Ready', 'False', 'InvalidSpec'), condition('Stalled', 'True', 'InvalidSpec')], 1, 2),
      status: 'Progressing',
      message: 'Waiting for the controller',
    },
    { name: 'the conditions are empty', obj: object([]), status: 'Progressing', message: 'Waiting for the controller' },
  ];
  for (const row of rows) {
    it(`is ${row.status} when ${row.name}`, async () => {
      assert.deepEqual(await health(row.obj), { status: row.status, message: row.message });
    });
  }

  it('ships the script under the key of every kind that reports Ready and Stalled, CoderTemplateTest aside', () => {
    const kinds = readdirSync('schemas')
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => parse(readFileSync(`schemas/${f}`, 'utf8')) as { kind?: string; 'x-coder-conditions'?: Record<string, unknown> })
      .filter((s) => s.kind && s['x-coder-conditions']?.Ready && s['x-coder-conditions']?.Stalled && s.kind !== 'CoderTemplateTest')
      .map((s) => s.kind!);
    assert.ok(kinds.includes('CoderControlPlane'));
    const patch = parse(readFileSync('examples/argocd/argocd-cm-patch.yaml', 'utf8')) as { data: Record<string, string> };
    assert.deepEqual(Object.keys(patch.data).sort(), kinds.map((k) => `resource.customizations.health.coder.com_${k}`).sort());
    for (const [key, value] of Object.entries(patch.data)) assert.equal(value, script, `${key} holds another script`);
  });
});
