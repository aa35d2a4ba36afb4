// Before `npm test` or `npm run dev` start anything: the system programs they need are named, all at once
// and with the command that installs them, and the harness binaries they lack are built
// (test/harness/build.sh, only the parts missing), with a line saying so first.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  missingGo,
  missingParts,
  missingPrerequisites,
  prerequisitesMessage,
  type HarnessPart,
  type MachineLookup,
  type Purpose,
} from './prerequisites.ts';

const here = import.meta.dirname;

/** The machine as it is. */
export const thisMachine: MachineLookup = {
  command: (name) => (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, name))),
  exists: (path) => existsSync(path),
  postgresServer: () => {
    if (process.env.CODER_K8S_PG_BIN) return existsSync(join(process.env.CODER_K8S_PG_BIN, 'postgres'));
    const root = '/usr/lib/postgresql';
    return existsSync(root) && readdirSync(root).some((major) => existsSync(join(root, major, 'bin', 'postgres')));
  },
  user: (name) =>
    readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .some((line) => line.startsWith(`${name}:`)),
  goVersion: () => {
    try {
      return execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', env: { ...process.env, GOTOOLCHAIN: 'local' } })
        .trim()
        .replace(/^go/, '');
    } catch {
      return undefined;
    }
  },
  root: process.getuid?.() === 0,
};

/** The Go release the harness modules declare. */
function wantedGo(): string {
  return /^go (\S+)/m.exec(readFileSync(join(here, 'go', 'kube', 'go.mod'), 'utf8'))?.[1] ?? '1.26.0';
}

export class PrerequisitesMissing extends Error {}

export interface PrepareDeps {
  machine: MachineLookup;
  /** Runs test/harness/build.sh for these parts; throws when it fails. */
  build: (parts: HarnessPart[]) => void;
  log: (line: string) => void;
  wantGo?: string;
}

/** Runs build.sh for `parts`, its progress on stderr. */
export function runBuild(parts: HarnessPart[]): void {
  const result = spawnSync('bash', [join(here, 'build.sh'), ...parts], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`test/harness/build.sh ${parts.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/**
 * Checks the machine for `purpose` (`command` is what the user ran, for the message), then builds the harness
 * parts it lacks. Throws PrerequisitesMissing naming every missing program before anything is built.
 */
export function prepareHarness(command: string, purpose: Purpose, deps: PrepareDeps): HarnessPart[] {
  const missing = missingPrerequisites(purpose, deps.machine);
  const parts = missingParts(purpose, deps.machine);
  const go = parts.length ? missingGo(deps.machine, deps.wantGo ?? wantedGo()) : undefined;
  if (go) missing.push(go);
  if (missing.length) throw new PrerequisitesMissing(prerequisitesMessage(command, missing, deps.machine.root));
  if (parts.length) {
    deps.log(
      `[harness] building what ${command} needs and this machine lacks: ${parts.join(', ')} ` +
        '(a first build takes about 25 minutes on 2 cores; later runs skip it)',
    );
    deps.build(parts);
  }
  return parts;
}

/** For scripts: prepares, or prints what is missing and exits 1. */
export function prepareOrExit(command: string, purpose: Purpose): void {
  try {
    prepareHarness(command, purpose, { machine: thisMachine, build: runBuild, log: (line) => console.error(line) });
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
