// The Coder API double follows Coder, not our client: every handler of an operation of the document names,
// in a comment right above it, the Coder release and source file it follows (`// coder/coder v2.26.1
// coderd/files.go postFile`), so that a reader can check it against Coder and a change can be checked again.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const root = new URL('../../../', import.meta.url);
const doubleDir = new URL('test/harness/coder-api-double/', root);
const citation = /\/\/.*coder\/coder v\d+\.\d+\.\d+ (coderd|enterprise|codersdk)\//;

function operationIds(): Set<string> {
  const doc = parse(readFileSync(new URL('schemas/coder-api/openapi.yaml', root), 'utf8')) as {
    paths: Record<string, Record<string, any>>;
  };
  const ids = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) if (item[method]) ids.add(item[method].operationId);
  }
  return ids;
}

describe('the Coder API double cites Coder', () => {
  it('names the Coder source file above every handler of an operation of the document', () => {
    const ids = operationIds();
    const uncited: string[] = [];
    let handlers = 0;
    for (const file of readdirSync(doubleDir).filter((f) => f.endsWith('.ts'))) {
      const lines = readFileSync(new URL(file, doubleDir), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const key = /^ {2}(\w+): /.exec(line)?.[1];
        if (!key || !ids.has(key)) return;
        handlers++;
        const comments: string[] = [];
        for (let j = i - 1; j >= 0 && lines[j]!.trim().startsWith('//'); j--) comments.push(lines[j]!);
        if (!comments.some((c) => citation.test(c))) uncited.push(`${file}: ${key}`);
      });
    }
    assert.ok(handlers > 40, `found only ${handlers} handlers: the test no longer reads the double's files`);
    assert.deepEqual(uncited, []);
  });
});
