// Field paths of validation errors found in the YAML they came from: keys, list items, dotted keys.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineCounter, parseDocument, type Node } from 'yaml';
import { pathOffset } from '../../../../src/app/validate/source-position.ts';

const text = `metadata:
  labels:
    app: x
    app.kubernetes.io/name: coder
spec:
  extraEnv:
  - name: A
  - name: B
    value: b
`;

function position(path: string): string {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const { line, col } = lineCounter.linePos(pathOffset(doc.contents as Node, path));
  return `${line}:${col}`;
}

describe('pathOffset', () => {
  it('points at the key of the field', () => assert.equal(position('spec.extraEnv'), '6:3'));
  it('points at a list item and a key inside it', () => {
    assert.equal(position('spec.extraEnv[1]'), '8:5');
    assert.equal(position('spec.extraEnv[1].value'), '9:5');
  });
  it('takes the longest key, as label keys hold dots', () => assert.equal(position('metadata.labels.app.kubernetes.io/name'), '4:5'));
  it('stops at the deepest part that exists', () => {
    assert.equal(position('spec.extraEnv[5].name'), '6:3');
    assert.equal(position('spec.database.connectionSecretRef'), '5:1');
  });
  it('points at the document for an empty path', () => assert.equal(position(''), '1:1'));
});
