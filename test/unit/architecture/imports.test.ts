// The direction of imports in src/: each layer reaches only the layers below it, no kind reaches another,
// and no module reaches itself through others (an import cycle); codegen/ has no cycle either.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const repo = resolve(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file of a folder (relative to the repository) and the files of the repository it imports, types included. */
function importGraph(folder: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(repo, folder))) {
    const imported = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(repo, resolve(dirname(file), name)));
    graph.set(relative(repo, file), imported);
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The layer a file of src/ belongs to, by folder: `controllers/shared`, `controllers/<kind>`, `runtime`, …. */
function layer(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src') return parts[0]!;
  if (parts.length === 2) return 'main';
  if (parts[1] === 'controllers') return parts.length === 3 ? 'controllers' : `controllers/${parts[2]}`;
  return parts[1]!;
}

/** What each layer may import besides itself and generated/. */
const allowed: Record<string, readonly string[]> = {
  runtime: [],
  validation: [],
  coder: ['runtime'],
  controlplane: ['coder', 'runtime'],
  'controllers/shared': ['controlplane', 'coder', 'runtime', 'validation'],
  aggregated: ['controlplane', 'coder', 'runtime', 'validation'],
  mcp: ['controlplane', 'coder', 'runtime'],
  app: ['*'],
  main: ['app', 'runtime'],
};

function mayImport(from: string, to: string): boolean {
  if (from === to || to === 'generated') return true;
  if (from.startsWith('controllers/') && from !== 'controllers/shared') {
    return ['controllers/shared', 'controlplane', 'coder', 'runtime', 'validation'].includes(to);
  }
  if (from === 'controllers') return to.startsWith('controllers/');
  const list = allowed[from];
  return list !== undefined && (list.includes('*') ? to !== 'main' : list.includes(to));
}

describe('imports in src/', () => {
  const graph = importGraph('src');

  it('form no cycle', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('point down the layers: runtime reaches nothing above it, no kind reaches another, nothing reaches the app', () => {
    const wrong = [...graph].flatMap(([file, imported]) =>
      imported.filter((target) => !mayImport(layer(file), layer(target))).map((target) => `${file} -> ${target}`),
    );
    assert.deepEqual(wrong, []);
  });

  it('finds a cycle and a wrong direction when there is one', () => {
    const looped = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/a.ts']],
    ]);
    assert.deepEqual(cycles(looped), [['src/a.ts', 'src/b.ts']]);
    assert.equal(mayImport(layer('src/runtime/writer.ts'), layer('src/controllers/shared/deps.ts')), false);
    assert.equal(mayImport(layer('src/controllers/coderprovisioner/x.ts'), layer('src/controllers/codercontrolplane/y.ts')), false);
    assert.equal(mayImport(layer('src/aggregated/x.ts'), layer('src/controllers/shared/y.ts')), false);
  });
});

describe('imports in codegen/', () => {
  it('form no cycle', () => {
    assert.deepEqual(cycles(importGraph('codegen')), []);
  });
});
