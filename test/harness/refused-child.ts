// What a user sees when the API server refuses a child object the spec asks for, read with the commands
// a user runs: kubectl patch, wait, get -o jsonpath and describe.
import assert from 'node:assert/strict';
import { kubectlOk } from './kubectl.ts';
import { eventually } from './wait.ts';

export interface RefusedChildCase {
  kind: string;
  namespace: string;
  name: string;
  /** A spec change the CRD admits and the API server refuses in a child. */
  refusedSpec: Record<string, unknown>;
  /** SpecValid's message for it (after "False ChildRefused: "). */
  message: RegExp;
  /** The spec change that repairs it. */
  repairSpec: Record<string, unknown>;
}

const condition = (type: string) => `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{end}`;

/**
 * On a Ready object: the refused change gives Ready False, Stalled True, SpecValid False ChildRefused
 * with `message`, observedGeneration of the change and a Warning Event; the repair brings Ready back.
 */
export async function expectRefusedChild(admin: string, c: RefusedChildCase): Promise<void> {
  const target = ['-n', c.namespace];
  const object = `${c.kind}/${c.name}`;
  await kubectlOk(admin, [...target, 'wait', '--for=condition=Ready', object, '--timeout=90s']);
  await kubectlOk(admin, [...target, 'patch', object, '--type=merge', '-p', JSON.stringify({ spec: c.refusedSpec })]);
  const generation = await kubectlOk(admin, [...target, 'get', object, '-o', 'jsonpath={.metadata.generation}']);
  await kubectlOk(admin, [...target, 'wait', '--for=condition=Stalled', object, '--timeout=60s']);
  const specValid = await kubectlOk(admin, [...target, 'get', object, '-o', condition('SpecValid')]);
  assert.match(specValid, /^False ChildRefused: /);
  assert.match(specValid, c.message);
  assert.match(
    await kubectlOk(admin, [...target, 'get', object, '-o', condition('Ready')]),
    /^False InvalidSpec: SpecValid is False \(ChildRefused\)/,
  );
  assert.equal(
    await kubectlOk(admin, [...target, 'get', object, '-o', 'jsonpath={.status.observedGeneration}']),
    generation,
    'the status describes the refused generation',
  );
  await eventually(`a ChildRefused Warning Event in kubectl describe ${object}`, async () =>
    /Warning\s+ChildRefused\s/.test(await kubectlOk(admin, [...target, 'describe', object])),
  );

  await kubectlOk(admin, [...target, 'patch', object, '--type=merge', '-p', JSON.stringify({ spec: c.repairSpec })]);
  await kubectlOk(admin, [...target, 'wait', '--for=condition=Ready', object, '--timeout=90s']);
  assert.match(await kubectlOk(admin, [...target, 'get', object, '-o', condition('SpecValid')]), /^True Valid: /);
}
