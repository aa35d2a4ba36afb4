// `coder-k8s validate -f FILE...` as a process: exit codes and the problem lines.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quantityPattern } from '../../codegen/kubernetes-compat.ts';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'coder-k8s.js');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function validate(args: string[], stdin?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [bin, 'validate', ...args], { cwd: repo, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(stdin ?? '');
  });
}

const controlPlane = (name: string, spec: string) => `apiVersion: coder.com/v1alpha1
kind: CoderControlPlane
metadata:
  name: ${name}
  namespace: coder
spec: ${spec}
`;

describe('coder-k8s validate', () => {
  let dir: string;
  let good: string;
  let bad: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'coder-k8s-validate-'));
    good = join(dir, 'good.yaml');
    bad = join(dir, 'bad.yaml');
    writeFileSync(
      good,
      [
        'apiVersion: v1\nkind: Secret\nmetadata: {name: coder-db-app, namespace: coder}\nstringData: {uri: postgres://x}\n',
        controlPlane('coder', '{database: {connectionSecretRef: {name: coder-db-app, key: uri}}}'),
      ].join('---\n'),
    );
    writeFileSync(
      bad,
      [
        controlPlane('ok', '{}'),
        controlPlane('pg', '{database: {connectionSecretRef: {name: db, key: ""}}, extraEnv: [{name: CODER_PG_CONNECTION_URL, value: x}]}'),
        controlPlane('typo', '{replica: 2}'),
        'apiVersion: coder.com/v1alpha1\nkind: CoderWidget\nmetadata: {name: w}\n',
      ].join('---\n'),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 and prints no problem for valid manifests, skipping other API groups', async () => {
    const r = await validate(['-f', good]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /1 object\(s\) checked, 0 problem\(s\), 1 object\(s\) of other API groups skipped/);
  });

  it('prints <file>:<doc> <kind>/<name>: <path>: <message> for each problem and exits 1', async () => {
    const r = await validate(['-f', good, '-f', bad]);
    assert.equal(r.code, 1);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [
      `${bad}:2 CoderControlPlane/pg: spec: Invalid value: spec.extraEnv must not set CODER_PG_CONNECTION_URL when spec.database.connectionSecretRef is set`,
      `${bad}:2 CoderControlPlane/pg: spec.database.connectionSecretRef.key: Invalid value: connectionSecretRef.key must not be empty`,
      `${bad}:3 CoderControlPlane/typo: spec.replica: unknown field "spec.replica"`,
      `${bad}:4 CoderWidget/w: unknown kind CoderWidget in coder.com/v1alpha1; this version of coder-k8s knows ` +
        'coder.com/v1alpha1 CoderAIGatewayKey, coder.com/v1alpha1 CoderAIProvider, coder.com/v1alpha1 CoderControlPlane, ' +
        'coder.com/v1alpha1 CoderMCPServer, coder.com/v1alpha1 CoderProvisioner, coder.com/v1alpha1 CoderTemplateTest, ' +
        'coder.com/v1alpha1 CoderWorkspaceProxy',
    ]);
    assert.match(r.stderr, /4 object\(s\) checked, 4 problem\(s\)/);
  });

  it('reads standard input for -f -', async () => {
    const r = await validate(['-f', '-'], controlPlane('stdin', '{resources: {limits: {cpu: 1 GB}}}'));
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `<stdin>:1 CoderControlPlane/stdin: spec.resources.limits.cpu: Invalid value: "1 GB": spec.resources.limits.cpu in body should match '${quantityPattern}'\n`,
    );
  });

  it('checks every file of a directory: the samples are valid', async () => {
    const r = await validate(['-f', join(repo, 'config', 'samples')]);
    assert.equal(r.code, 0, r.stdout);
  });

  it('exits 2 with the usage when no file is given, and reports a file it cannot read', async () => {
    const none = await validate([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give at least one -f FILE/);
    const missing = await validate(['-f', join(dir, 'missing.yaml')]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, `${join(dir, 'missing.yaml')}: cannot read: ENOENT\n`);
  });
});
