// What `npm test` and `npm run dev` need from the machine before they start anything: the system programs
// (named once, up front, with the command that installs them) and the harness binaries test/harness/build.sh
// makes (built on first use, only those missing). The machine is read through a `MachineLookup`, so a test
// can show a machine without tini.
import { dirname, join } from 'node:path';
import {
  binaryPath,
  coderSourcesDir,
  coderVersion,
  coderVersions,
  coderSourceVersions,
  etcdVersion,
  gatewayApiCrd,
  helmVersion,
  kubernetesVersion,
  kwokVersion,
} from './binaries.ts';

/** What this run is for: each needs its own programs and parts. */
export type Purpose = 'test' | 'dev' | 'dev-real-coder';

/** The parts of test/harness/build.sh (its `build_<part>` functions). */
export type HarnessPart = 'etcd' | 'kube' | 'kwok' | 'helm' | 'coder' | 'coder_sources' | 'gateway_api';

export interface MachineLookup {
  /** A program on PATH. */
  command(name: string): boolean;
  /** A file (or directory) exists. */
  exists(path: string): boolean;
  /** PostgreSQL's server binaries (Debian's /usr/lib/postgresql/<major>/bin, or CODER_K8S_PG_BIN). */
  postgresServer(): boolean;
  /** A system user. */
  user(name: string): boolean;
  /** `go env GOVERSION` without "go" (1.26.8), or undefined without Go. */
  goVersion(): string | undefined;
  root: boolean;
}

export interface Prerequisite {
  name: string;
  /** What needs it, for the message. */
  why: string;
  /** The Debian package that brings it, or undefined when it has none. */
  apt?: string;
  /** Where to get it otherwise. */
  elsewhere?: string;
}

const tini: Prerequisite = { name: 'tini', why: 'the e2e tests start the image layout under it (/usr/bin/tini)', apt: 'tini' };
const postgres: Prerequisite = { name: 'PostgreSQL server', why: "Coder's database in the tests", apt: 'postgresql' };
const postgresUser: Prerequisite = { name: 'the postgres user', why: 'PostgreSQL refuses to run as root', apt: 'postgresql' };
const openssl: Prerequisite = { name: 'openssl', why: 'the certificate tests check against it', apt: 'openssl' };
const jq: Prerequisite = { name: 'jq', why: "the tests run the deploy guide's scripts as written", apt: 'jq' };
const kubectl: Prerequisite = {
  name: 'kubectl',
  why: 'the harness applies manifests as the docs do',
  elsewhere: 'https://kubernetes.io/docs/tasks/tools/',
};

/** The system programs `purpose` needs that the machine lacks. */
export function missingPrerequisites(purpose: Purpose, machine: MachineLookup): Prerequisite[] {
  const missing: Prerequisite[] = [];
  if (!machine.command('kubectl')) missing.push(kubectl);
  if (purpose !== 'dev') {
    if (!machine.postgresServer()) missing.push(postgres);
    else if (machine.root && !machine.user('postgres')) missing.push(postgresUser);
  }
  if (purpose === 'test') {
    if (!machine.exists('/usr/bin/tini')) missing.push(tini);
    if (!machine.command('openssl')) missing.push(openssl);
    if (!machine.command('jq')) missing.push(jq);
  }
  return missing;
}

/** The files test/harness/build.sh leaves for each part once it is built (its `built` check). */
function partFiles(part: HarnessPart): string[] {
  switch (part) {
    case 'etcd':
      return [binaryPath('etcd', etcdVersion, 'etcd'), binaryPath('etcd', etcdVersion, '.complete')];
    case 'kube':
      return ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', '.complete'].map((f) =>
        binaryPath('kubernetes', kubernetesVersion, f),
      );
    case 'kwok':
      return [binaryPath('kwok', kwokVersion, 'kwok'), binaryPath('kwok', kwokVersion, '.complete')];
    case 'helm':
      return [binaryPath('helm', helmVersion, 'helm'), binaryPath('helm', helmVersion, '.complete')];
    case 'coder':
      return coderVersions.flatMap((v) => [
        binaryPath('coder', v, 'coder'),
        binaryPath('coder', v, '.complete'),
        ...(v === coderVersion ? [binaryPath('coder', v, 'coder-echo-template')] : []),
      ]);
    case 'coder_sources':
      return coderSourceVersions.flatMap((v) => [`${coderSourcesDir(v)}/.complete`, `${coderSourcesDir(v)}/migrations`]);
    case 'gateway_api':
      return [gatewayApiCrd('httproutes'), join(dirname(gatewayApiCrd('httproutes')), '.complete')];
  }
}

/** The harness parts `purpose` starts. */
export function partsFor(purpose: Purpose): HarnessPart[] {
  if (purpose === 'dev') return ['etcd', 'kube', 'kwok'];
  if (purpose === 'dev-real-coder') return ['etcd', 'kube', 'kwok', 'coder'];
  return ['etcd', 'kube', 'kwok', 'helm', 'coder', 'coder_sources', 'gateway_api'];
}

/** The parts of `purpose` that are not built yet. */
export function missingParts(purpose: Purpose, machine: Pick<MachineLookup, 'exists'>): HarnessPart[] {
  return partsFor(purpose).filter((part) => !partFiles(part).every((file) => machine.exists(file)));
}

/** The Go release the harness modules declare (test/harness/go/*\/go.mod), compared part by part. */
export function goIsAtLeast(have: string, want: string): boolean {
  const a = have.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const b = want.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** Go, when something is to be built and the machine has none (or an older one than `wantGo`). */
export function missingGo(machine: MachineLookup, wantGo: string): Prerequisite | undefined {
  const have = machine.goVersion();
  if (have && goIsAtLeast(have, wantGo)) return undefined;
  return {
    name: `Go ${wantGo} or newer${have ? ` (this is ${have})` : ''}`,
    why: 'the first run builds the test control plane and Coder from Go modules',
    elsewhere: 'https://go.dev/dl/',
  };
}

/** One message naming every missing program, what needs it, and the one command that installs those that apt has. */
export function prerequisitesMessage(command: string, missing: Prerequisite[], root: boolean): string {
  const lines = missing.map((p) => `  ${p.name}: ${p.why}${p.elsewhere ? `; get it from ${p.elsewhere}` : ''}`);
  const packages = [...new Set(missing.flatMap((p) => (p.apt ? [p.apt] : [])))];
  const install = packages.length ? [`Install with: ${root ? '' : 'sudo '}apt-get install ${packages.join(' ')}`] : [];
  return [`${command} needs what this machine lacks:`, ...lines, ...install].join('\n');
}
