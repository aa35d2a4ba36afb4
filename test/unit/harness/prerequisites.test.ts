// `npm test` and `npm run dev` on a machine that lacks something: every missing program is named once,
// before anything starts, with the command that installs it; only the harness parts missing are built.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrerequisitesMissing, prepareHarness, thisMachine } from '../../harness/prepare.ts';
import { missingParts, type HarnessPart, type MachineLookup } from '../../harness/prerequisites.ts';

/** A machine with everything the harness needs, all parts built, and `without` taken away. */
function aMachine(
  without: { commands?: string[]; files?: string[]; parts?: string[]; go?: string | null; postgres?: boolean; root?: boolean } = {},
): MachineLookup {
  return {
    command: (name) => !(without.commands ?? []).includes(name),
    exists: (path) => !(without.files ?? []).includes(path) && !(without.parts ?? []).some((component) => path.includes(`/${component}/`)),
    postgresServer: () => without.postgres !== false,
    user: () => true,
    goVersion: () => (without.go === null ? undefined : (without.go ?? '1.26.8')),
    root: without.root ?? false,
  };
}

function prepare(machine: MachineLookup, purpose: 'test' | 'dev' | 'dev-real-coder' = 'test') {
  const builds: HarnessPart[][] = [];
  const lines: string[] = [];
  const run = () =>
    prepareHarness('npm test', purpose, { machine, build: (parts) => builds.push(parts), log: (l) => lines.push(l), wantGo: '1.26.0' });
  return { run, builds, lines };
}

describe('prepareHarness', () => {
  it('names tini as missing, with the command that installs it, before it builds or starts anything', () => {
    const p = prepare(aMachine({ files: ['/usr/bin/tini'], parts: ['kubernetes'] }));
    assert.throws(
      p.run,
      (err) =>
        err instanceof PrerequisitesMissing &&
        err.message ===
          'npm test needs what this machine lacks:\n' +
            '  tini: the e2e tests start the image layout under it (/usr/bin/tini)\n' +
            'Install with: sudo apt-get install tini',
    );
    assert.deepEqual(p.builds, []);
  });

  it('names every missing program in one message, and one apt-get for those Debian packages (no sudo as root)', () => {
    const machine = aMachine({ files: ['/usr/bin/tini'], commands: ['jq', 'kubectl', 'openssl'], postgres: false, root: true });
    assert.throws(prepare(machine).run, (err) => {
      const lines = (err as Error).message.split('\n');
      assert.deepEqual(
        lines.map((l) => l.split(':')[0]),
        ['npm test needs what this machine lacks', '  kubectl', '  PostgreSQL server', '  tini', '  openssl', '  jq', 'Install with'],
      );
      assert.equal(lines.at(-1), 'Install with: apt-get install postgresql tini openssl jq');
      assert.match(lines[1]!, /https:\/\/kubernetes\.io\/docs\/tasks\/tools\//);
      return true;
    });
  });

  it('builds only the parts that are missing, after a line saying so', () => {
    const p = prepare(aMachine({ parts: ['kubernetes', 'coder-sources'] }));
    assert.deepEqual(p.run(), ['kube', 'coder_sources']);
    assert.deepEqual(p.builds, [['kube', 'coder_sources']]);
    assert.equal(p.lines.length, 1);
    assert.match(p.lines[0]!, /^\[harness\] building what npm test needs and this machine lacks: kube, coder_sources \(/);
  });

  it('builds nothing and says nothing when every part is built, and then needs no Go', () => {
    const p = prepare(aMachine({ go: null }));
    assert.deepEqual(p.run(), []);
    assert.deepEqual([p.builds, p.lines], [[], []]);
  });

  it('asks for Go, or a newer Go, only when something is to be built', () => {
    assert.throws(
      prepare(aMachine({ parts: ['etcd'], go: null })).run,
      /Go 1\.26\.0 or newer: the first run builds .*https:\/\/go\.dev\/dl\//,
    );
    assert.throws(prepare(aMachine({ parts: ['etcd'], go: '1.25.9' })).run, /Go 1\.26\.0 or newer \(this is 1\.25\.9\)/);
  });

  it('asks npm run dev for kubectl and the control plane only; --real-coder adds PostgreSQL and Coder', () => {
    const bare = aMachine({ files: ['/usr/bin/tini'], commands: ['jq', 'openssl'], postgres: false, parts: ['coder', 'coder-sources'] });
    assert.deepEqual(prepare(bare, 'dev').run(), []);
    assert.throws(prepare(bare, 'dev-real-coder').run, /PostgreSQL server/);
    assert.deepEqual(missingParts('dev-real-coder', aMachine({ parts: ['coder'] })), ['coder']);
  });
});

describe('thisMachine', () => {
  it('finds a program on PATH and not one that does not exist', () => {
    assert.equal(thisMachine.command('sh'), true);
    assert.equal(thisMachine.command('no-such-program-coder-k8s'), false);
  });
});
