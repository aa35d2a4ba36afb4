// `npm run harness:up` and `npm run dev` as a user runs them (npm in its own process group, as a
// terminal would), stopped by a signal: npm exits, no process it started is left, and no temporary
// directory it made is left in /dev/shm or the temp dir.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '../harness/wait.ts';

const prefixes = ['coder-k8s-etcd-', 'coder-k8s-pg-', 'coder-k8s-cp-'];
const directories = ['/dev/shm', tmpdir()];

function harnessDirectories(): Set<string> {
  const found = new Set<string>();
  for (const root of directories) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root)) if (prefixes.some((p) => name.startsWith(p))) found.add(join(root, name));
  }
  return found;
}

interface ProcInfo {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function processes(): ProcInfo[] {
  const list: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    list.push({ pid: Number(entry), state: state!, ppid: Number(ppid), pgrp: Number(pgrp) });
  }
  return list;
}

/** Living (not zombie) descendants of `root`. */
function descendants(root: number): number[] {
  const all = processes().filter((p) => p.state !== 'Z');
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = all.filter((p) => frontier.includes(p.ppid)).map((p) => p.pid);
    found.push(...children);
    frontier = children;
  }
  return found;
}

function alive(pid: number): boolean {
  return processes().some((p) => p.pid === pid && p.state !== 'Z');
}

function command(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function livingInGroup(pgrp: number): number[] {
  return processes()
    .filter((p) => p.pgrp === pgrp && p.state !== 'Z')
    .map((p) => p.pid);
}

interface Run {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm run <script> -- <args>` in a new process group, the way a shell starts a foreground job. */
function npmRun(script: string, args: string[]): Run {
  const nodeBin = dirname(process.execPath);
  // npm as found on PATH (it runs on `node` from PATH, so this Node.js goes first).
  const npm = spawn('npm', ['run', script, '--', ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${nodeBin}:${process.env.PATH}`, CODER_K8S_KEEP_HARNESS: '' },
  });
  let text = '';
  npm.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  npm.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    npm.once('exit', (code, signal) => resolve({ code, signal }));
    npm.once('error', reject);
  });
  exited.catch(() => undefined); // awaited later; a failed spawn also ends `until`
  return { npm, output: () => text, exited };
}

/** Waits until the output matches; fails at once if npm ends first. */
async function until(run: Run, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(run.output())) {
    const ended = run.npm.exitCode !== null || run.npm.signalCode !== null || run.npm.pid === undefined;
    if (ended) throw new Error(`npm ended before its output matched ${pattern}:\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Case {
  name: string;
  script: string;
  args: string[];
  ready: RegExp;
  readyTimeoutMs: number;
  /** Makes a PostgreSQL directory too (harness:up without --no-postgres). */
  postgres?: boolean;
  /** Sends the stop signal(s); the npm pid is also the process group id. */
  stop: (run: Run, pid: number, started: number[]) => Promise<void>;
}

async function startSignalAndCheck(c: Case): Promise<void> {
  const before = harnessDirectories();
  const run = npmRun(c.script, c.args);
  const pid = run.npm.pid!;
  let started: number[] = [];
  try {
    await until(run, c.ready, c.readyTimeoutMs);
    started = descendants(pid);
    const made = [...harnessDirectories()].filter((d) => !before.has(d));
    assert.ok(started.length >= 2, `npm started processes (saw ${started.length})`);
    assert.ok(
      made.some((d) => d.includes('coder-k8s-etcd-')) && made.some((d) => d.includes('coder-k8s-cp-')),
      `made its directories: ${made.join(', ')}`,
    );
    if (c.postgres)
      assert.ok(
        made.some((d) => d.includes('coder-k8s-pg-')),
        `made its PostgreSQL directory: ${made.join(', ')}`,
      );

    await c.stop(run, pid, started);
    const exit = await Promise.race([
      run.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`npm did not exit within 120 s:\n${run.output()}`)), 120_000).unref(),
      ),
    ]);

    const left = started.filter(alive);
    assert.deepEqual(left, [], `no process npm started is left (started ${started.join(' ')}):\n${run.output()}`);
    await eventually('no process left in the process group', async () => livingInGroup(pid).length === 0, { timeoutMs: 15_000 });
    const leftDirs = [...harnessDirectories()].filter((d) => !before.has(d));
    assert.deepEqual(leftDirs, [], `no temporary directory is left:\n${run.output()}`);
    assert.deepEqual(exit, { code: 0, signal: null }, `npm exited 0 (a stop signal is how these scripts end):\n${run.output()}`);
  } finally {
    // A failed case leaves nothing running for the next one.
    for (const left of new Set([pid, ...started, ...livingInGroup(pid)])) {
      if (alive(left)) process.kill(left, 'SIGKILL');
    }
  }
}

const harnessUp = { script: 'harness:up', ready: /Ctrl-C stops everything\./, readyTimeoutMs: 120_000 };

describe('npm run harness:up and npm run dev stop cleanly', () => {
  it('harness:up stops on SIGINT to the npm process', () =>
    startSignalAndCheck({
      ...harnessUp,
      name: 'SIGINT to npm',
      args: ['--minimal', '--no-postgres'],
      stop: async (_run, pid) => void process.kill(pid, 'SIGINT'),
    }));

  it('harness:up with PostgreSQL stops on SIGTERM to the npm process', () =>
    startSignalAndCheck({
      ...harnessUp,
      name: 'SIGTERM to npm',
      args: ['--minimal'],
      postgres: true,
      stop: async (_run, pid) => void process.kill(pid, 'SIGTERM'),
    }));

  it('harness:up finishes its clean-up when Ctrl-C is pressed twice', () =>
    startSignalAndCheck({
      ...harnessUp,
      name: 'SIGINT twice to the process group',
      args: ['--minimal', '--no-postgres'],
      // kube-apiserver and etcd are frozen, so the clean-up waits out their grace periods (about 10 s)
      // and the second Ctrl-C surely lands in the middle of it.
      stop: async (run, pid, started) => {
        const slow = started.filter((p) => ['kube-apiserver', 'etcd'].includes(command(p)));
        assert.equal(slow.length, 2, `found kube-apiserver and etcd among ${started.map((p) => `${p}:${command(p)}`).join(' ')}`);
        for (const p of slow) process.kill(p, 'SIGSTOP');
        process.kill(-pid, 'SIGINT');
        await until(run, /stopping the harness/, 30_000);
        process.kill(-pid, 'SIGINT');
        await until(run, /clean-up in progress/, 30_000);
      },
    }));

  it('dev stops on Ctrl-C (SIGINT to the process group)', () =>
    startSignalAndCheck({
      name: 'Ctrl-C',
      script: 'dev',
      args: [],
      ready: /Ctrl-C stops the operator and the control plane\./,
      readyTimeoutMs: 240_000,
      stop: async (_run, pid) => void process.kill(-pid, 'SIGINT'),
    }));
});
