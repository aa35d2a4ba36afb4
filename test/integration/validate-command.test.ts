// `coder-k8s validate -f FILE...` as a process: exit codes and the problem lines.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quantityPattern } from '../../codegen/kubernetes-compat.ts';
import { kubectl } from '../harness/kubectl.ts';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'coder-k8s.js');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  /** The child's peak resident set size. */
  maxRssMiB: number;
}

/** Loads the binary in a process that reports its own peak RSS (KiB) on fd 3 as it exits. */
const rssWrapper = `process.on('exit', () => require('node:fs').writeSync(3, String(process.resourceUsage().maxRSS)));
import(require('node:url').pathToFileURL(process.argv[1]).href);`;

function validate(args: string[], stdin?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', rssWrapper, bin, 'validate', ...args], {
      cwd: repo,
      timeout: 120_000,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let rss = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d) => (rss += d));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr, maxRssMiB: Math.round(Number(rss) / 1024) }));
    child.stdin!.end(stdin ?? '');
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
    assert.equal(r.stdout, '1 object(s) checked, 0 problem(s), 1 object(s) of other API groups skipped\n');
    assert.equal(r.stderr, '');
  });

  it('prints <file>:<line>:<column>: document <n>, <kind>/<name>: <path>: <message> for each problem, and a summary, and exits 1', async () => {
    const r = await validate(['-f', good, '-f', bad]);
    assert.equal(r.code, 1);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [
      `${bad}:13:1: document 2, CoderControlPlane/pg: spec: Invalid value: spec.extraEnv must not set CODER_PG_CONNECTION_URL when spec.database.connectionSecretRef is set`,
      `${bad}:13:51: document 2, CoderControlPlane/pg: spec.database.connectionSecretRef.key: Invalid value: connectionSecretRef.key must not be empty`,
      `${bad}:20:8: document 3, CoderControlPlane/typo: spec.replica: unknown field "spec.replica"`,
      `${bad}:22:1: document 4, CoderWidget/w: unknown kind CoderWidget in coder.com/v1alpha1; this version of coder-k8s knows ` +
        'coder.com/v1alpha1 CoderAIGatewayKey, coder.com/v1alpha1 CoderAIProvider, coder.com/v1alpha1 CoderControlPlane, ' +
        'coder.com/v1alpha1 CoderMCPServer, coder.com/v1alpha1 CoderProvisioner, coder.com/v1alpha1 CoderTemplateTest, ' +
        'coder.com/v1alpha1 CoderWorkspaceProxy',
      '4 object(s) checked, 4 problem(s), 1 object(s) of other API groups skipped',
    ]);
    assert.equal(r.stderr, '');
  });

  it('reads standard input for -f -', async () => {
    const r = await validate(['-f', '-'], controlPlane('stdin', '{resources: {limits: {cpu: 1 GB}}}'));
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `<stdin>:6:29: document 1, CoderControlPlane/stdin: spec.resources.limits.cpu: Invalid value: "1 GB": spec.resources.limits.cpu in body should match '${quantityPattern}'\n` +
        '1 object(s) checked, 1 problem(s)\n',
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
    assert.equal(missing.stdout, `${join(dir, 'missing.yaml')}: cannot read: ENOENT\n0 object(s) checked, 1 problem(s)\n`);
  });

  it('reports a document with more than 100 YAML aliases on one line and goes on with the next file', async () => {
    const aliases = join(dir, 'aliases.yaml');
    const refs = Array.from({ length: 101 }, (_, i) => `  k${i}: *a`).join('\n');
    writeFileSync(aliases, `apiVersion: coder.com/v1alpha1\nkind: CoderControlPlane\nmetadata: {name: bomb}\nx: &a [1]\nspec:\n${refs}\n`);
    const r = await validate(['-f', aliases, '-f', bad]);
    assert.equal(r.code, 1);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `${aliases}:1:1: document 1, <document>: is not accepted: it uses more than 100 YAML aliases`);
    assert.equal(lines.length, 6, 'the next file is still checked');
    assert.doesNotMatch(r.stderr, /at \w+ \(/, 'no stack trace');
  });

  it('refuses a document over 3 MiB, as the API server does, without reading a huge file whole', async () => {
    const big = join(dir, 'big.yaml');
    const filler = 'x'.repeat(50 * 1024 * 1024);
    writeFileSync(big, `${controlPlane('small', '{}')}---\n${controlPlane('huge', `{extraArgs: ["${filler}"]}`)}`);
    const r = await validate(['-f', big]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `${big}:7:1: document 2, <document>: is 50.0 MiB; the API server refuses an object over 3 MiB\n1 object(s) checked, 1 problem(s)\n`,
    );
    console.log(`validate of a 50 MiB document: peak RSS ${r.maxRssMiB} MiB`);
    assert.ok(r.maxRssMiB < 400, `peak RSS ${r.maxRssMiB} MiB`);

    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, `${controlPlane('a', '{}')}---\n`.repeat(1).concat('#'.repeat(70 * 1024 * 1024)));
    const h = await validate(['-f', huge]);
    assert.equal(h.code, 1);
    assert.equal(h.stdout, `${huge}: is larger than 64 MiB; split it into several files\n0 object(s) checked, 1 problem(s)\n`);
  });

  it('escapes terminal control sequences in what it prints', async () => {
    const escapes = join(dir, 'escapes.yaml');
    writeFileSync(escapes, controlPlane('"evil\\e]0;pwned\\a\\e[2J"', '{"\\e[31mred": 1}'));
    const r = await validate(['-f', escapes]);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stdout, /[\u001b\u0007]/);
    assert.equal(
      r.stdout,
      `${escapes}:6:8: document 1, CoderControlPlane/evil\\x1b]0;pwned\\x07\\x1b[2J: spec.\\x1b[31mred: unknown field "spec.\\x1b[31mred"\n` +
        '1 object(s) checked, 1 problem(s)\n',
    );
  });

  it('takes several files and directories after one -f, as a shell glob gives them, and after repeated -f', async () => {
    const samples = join(repo, 'config', 'samples');
    const globbed = readdirSync(samples)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(samples, f));
    const one = await validate(['-f', ...globbed]);
    assert.equal(one.code, 0, one.stdout + one.stderr);
    assert.match(one.stdout, /^\d+ object\(s\) checked, 0 problem\(s\)/);
    const mixed = await validate(['-f', good, bad, samples, '-f', good]);
    assert.equal(mixed.code, 1);
    assert.equal(mixed.stdout.split('\n').filter((l) => l.startsWith(`${bad}:`)).length, 4);
    assert.equal(mixed.stderr, '');
  });

  it('refuses a file named before any -f as a usage error (exit 2)', async () => {
    const r = await validate([good]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.split('\n')[0], `coder-k8s validate: ${good}: name files after -f (-f ${good})`);
  });

  it('reports a line indented too deep once, on the line kubectl names', async () => {
    const indented = join(dir, 'indented.yaml');
    writeFileSync(indented, `${controlPlane('coder', '').trimEnd()}\n  image: ghcr.io/coder/coder:v2.36.0\n   replicas: 1\n`);
    const r = await validate(['-f', indented]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `${indented}:8:4: document 1, <document>: is not valid YAML: mapping values are not allowed in this context: ` +
        'this line is indented more than the keys of its mapping, so it reads as part of the value above\n' +
        '0 object(s) checked, 1 problem(s)\n',
    );
    // kubectl parses the file before it needs a server: an empty kubeconfig is enough. (In a file of several
    // documents kubectl counts lines from the document's start; validate counts them from the file's.)
    const client = await kubectl('/dev/null', ['create', '--dry-run=client', '-o', 'yaml', '-f', indented]);
    assert.notEqual(client.code, 0);
    assert.match(client.stderr, /yaml: line 8: mapping values are not allowed in this context/);
  });

  it('names the line and column of a YAML syntax error in a later document, without a dangling colon', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(
      broken,
      `${controlPlane('fine', '{}')}---\napiVersion: coder.com/v1alpha1\nkind: CoderControlPlane\nmetadata:\n  name: a: b\n`,
    );
    const r = await validate(['-f', broken]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `${broken}:11:9: document 2, <document>: is not valid YAML: Nested mappings are not allowed in compact mappings\n` +
        '1 object(s) checked, 1 problem(s)\n',
    );
  });
});
