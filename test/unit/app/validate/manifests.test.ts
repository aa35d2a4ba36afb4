// Manifests checked offline: documents numbered from 1, other API groups skipped, unknown coder.com kinds
// and broken documents reported.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { quantityPattern } from '../../../../codegen/kubernetes-compat.ts';
import { checkManifests, splitDocuments } from '../../../../src/app/validate/manifests.ts';
import { terminalSafe } from '../../../../src/app/validate/terminal-safe.ts';

const good = `apiVersion: coder.com/v1alpha1
kind: CoderControlPlane
metadata: {name: coder, namespace: coder}
spec: {replicas: 1}`;

describe('checkManifests', () => {
  it('checks our kinds, skips others, and numbers documents from 1', () => {
    const text = `apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n${good}\n---\n${good.replace('replicas: 1', 'resources: {limits: {cpu: 1 GB}}')}\n`;
    const report = checkManifests(text);
    assert.equal(report.checked, 2);
    assert.equal(report.skipped, 1);
    assert.deepEqual(report.problems, [
      {
        doc: 3,
        line: 13,
        column: 29,
        object: 'CoderControlPlane/coder',
        path: 'spec.resources.limits.cpu',
        message: `Invalid value: "1 GB": spec.resources.limits.cpu in body should match '${quantityPattern}'`,
      },
    ]);
  });

  it('accepts what Kubernetes accepts in embedded types: empty toleration effect and operator, empty pull policy, quantities', () => {
    const spec = `{tolerations: [{key: a, effect: ""}, {key: b, operator: ""}], volumes: [{name: v, image: {reference: r, pullPolicy: ""}}], resources: {limits: {cpu: "1.5", memory: 1e9}, requests: {memory: 512Mi}}}`;
    assert.deepEqual(checkManifests(good.replace('{replicas: 1}', spec)).problems, []);
  });

  it('names an unknown kind of coder.com and the kinds it knows', () => {
    const report = checkManifests('apiVersion: coder.com/v1alpha1\nkind: CoderWidget\nmetadata: {name: w}\n');
    assert.equal(report.problems.length, 1);
    assert.match(
      report.problems[0]!.message,
      /^unknown kind CoderWidget in coder\.com\/v1alpha1; this version of coder-k8s knows .*CoderControlPlane/,
    );
    assert.equal(report.problems[0]!.object, 'CoderWidget/w');
  });

  it('reports an unknown version of coder.com as an unknown kind', () => {
    const report = checkManifests(good.replace('v1alpha1', 'v1'));
    assert.match(report.problems[0]!.message, /^unknown kind CoderControlPlane in coder\.com\/v1;/);
  });

  it('checks the items of a List, and ignores empty documents', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [{ apiVersion: 'coder.com/v1alpha1', kind: 'CoderProvisioner', metadata: { name: 'p' }, spec: {} }],
    };
    const report = checkManifests(`---\n---\n${JSON.stringify(list)}\n---\n`);
    const specColumn = JSON.stringify(list).indexOf('"spec"') + 1;
    assert.deepEqual(report.problems, [
      { doc: 2, line: 3, column: specColumn, object: 'CoderProvisioner/p', path: 'spec.controlPlaneRef', message: 'Required value' },
    ]);
  });

  it('reads yes and no as booleans, like kubectl', () => {
    assert.deepEqual(checkManifests(good.replace('spec: {replicas: 1}', 'spec: {envUseClusterAccessURL: yes}')).problems, []);
  });

  it('reports a document that is not YAML or not an object', () => {
    const report = checkManifests(`${good}\n---\nkey: [unclosed\n---\n- a list\n`);
    assert.deepEqual(
      report.problems.map((p) => [p.doc, p.object, p.message.split(':')[0]]),
      [
        [2, '<document>', 'is not valid YAML'],
        [3, '<document>', 'is not an object (a mapping with apiVersion, kind and metadata)'],
      ],
    );
  });
});

describe('checkManifests on a YAML indentation mistake', () => {
  const header = 'apiVersion: coder.com/v1alpha1\nkind: CoderControlPlane\nmetadata:\n  name: coder\nspec:\n';
  const deeper =
    'is not valid YAML: mapping values are not allowed in this context: this line is indented more than the keys of its mapping, ' +
    'so it reads as part of the value above';
  const cases: Array<[string, string, { line: number; column: number; message: string }]> = [
    ['a key indented deeper than the key above it', '  image: x\n   replicas: 1\n', { line: 7, column: 4, message: deeper }],
    [
      'a key of a list item indented deeper than the first',
      '  extraEnv:\n  - name: A\n     value: b\n',
      { line: 8, column: 6, message: deeper },
    ],
    [
      'a key indented less than the key above it',
      '  image: x\n replicas: 1\n',
      { line: 7, column: 2, message: 'is not valid YAML: All mapping items must start at the same column' },
    ],
  ];
  for (const [what, spec, where] of cases) {
    it(`reports ${what} once, on the line to fix`, () => {
      const report = checkManifests(header + spec);
      assert.deepEqual(report.problems, [{ doc: 1, object: '<document>', path: '', ...where }]);
    });
  }

  it('counts lines from the start of the file in a later document', () => {
    const report = checkManifests(`apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n${header}  image: x\n   replicas: 1\n`);
    assert.deepEqual(
      report.problems.map((p) => [p.doc, p.line, p.column]),
      [[2, 11, 4]],
    );
  });
});

describe('splitDocuments', () => {
  const texts = [
    '',
    'a: 1',
    '---\na: 1',
    '# header\n%YAML 1.1\n---\na: 1\n---\nb: 2\n',
    'a: 1\n---\n',
    'a: |\n  x\n  --- not a marker\n--- \nb: 2\n...\n',
    'a: "---"\n---b: 1\n--- c: 2\n',
  ];
  for (const text of texts) {
    it(`finds the documents the parser finds in ${JSON.stringify(text)}`, () => {
      const parsed = parseAllDocuments(text, { version: '1.1' }).map((d) => JSON.stringify(d.toJS()));
      const split = splitDocuments(text).flatMap((chunk) =>
        parseAllDocuments(chunk, { version: '1.1' }).map((d) => JSON.stringify(d.toJS())),
      );
      assert.deepEqual(split, parsed);
    });
  }
});

describe('terminalSafe', () => {
  it('escapes control characters (newlines too: one problem, one line) and bidirectional overrides, and keeps other text', () => {
    assert.equal(terminalSafe('a\u001b[2Jb\u0007c\u009bd\u202ee\tf\ng é'), 'a\\x1b[2Jb\\x07c\\x9bd\\u202ee\\x09f\\x0ag é');
  });
});
