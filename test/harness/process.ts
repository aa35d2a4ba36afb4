// Child processes of the harness: logged to a file, waited on with deadlines, always stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setProcessStopper } from './shutdown.ts';

const running = new Set<ChildProcess>();
const managed = new Set<ManagedProcess>();

// Last resort when a test process exits without calling stop(): no control-plane process outlives it.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
// On a stop signal: newest first, so the operator goes before kube-apiserver and kube-apiserver before etcd.
setProcessStopper(async () => {
  for (const proc of [...managed].reverse()) await proc.stop();
});

export interface ProcessSpec {
  /** Component name, used in every error message. */
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run under this uid/gid (the harness runs as root in CI; PostgreSQL refuses to). */
  uid?: number;
  gid?: number;
  /** The signal that asks for a clean shutdown; SIGTERM by default. */
  stopSignal?: NodeJS.Signals;
}

export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  private child: ChildProcess;
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private stopSignal: NodeJS.Signals;

  constructor(spec: ProcessSpec) {
    this.name = spec.name;
    this.logFile = spec.logFile;
    this.stopSignal = spec.stopSignal ?? 'SIGTERM';
    const log = createWriteStream(spec.logFile, { flags: 'a' });
    this.child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(spec.uid === undefined ? {} : { uid: spec.uid, gid: spec.gid }),
    });
    this.child.stdout?.pipe(log, { end: false });
    this.child.stderr?.pipe(log, { end: false });
    running.add(this.child);
    managed.add(this);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        running.delete(this.child);
        managed.delete(this);
        this.exitCode = code ?? (signal ? -1 : null);
        log.end();
        resolve(this.exitCode);
      });
      this.child.once('error', (err) => {
        log.write(`\n[harness] failed to start ${spec.command}: ${err.message}\n`);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.exitCode !== undefined;
  }

  /** The exit code once exited (-1 for a signal), else undefined. */
  get exitStatus(): number | null | undefined {
    return this.exitCode;
  }

  /** The last lines of the component's log, for error messages. */
  async tail(lines = 25): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** An error that names the component and shows the tail of its log. */
  async failure(what: string): Promise<Error> {
    const state = this.hasExited ? ` (exited with ${this.exitCode})` : '';
    return new Error(`${this.name}: ${what}${state}; last lines of ${this.logFile}:\n${await this.tail()}`);
  }

  /** The stop signal, then SIGKILL after the grace period; resolves when the process is gone. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.hasExited) return;
    this.child.kill(this.stopSignal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Ends the process at once, as a crash would. */
  async kill(): Promise<void> {
    if (this.hasExited) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * Polls `probe` until it returns true, the process exits, or the deadline passes. Errors name the
 * component and what was awaited, with the tail of its log.
 */
export async function waitUntilReady(proc: ManagedProcess, what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (proc.hasExited) throw await proc.failure(`exited while waiting for ${what}`);
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const detail = lastError ? ` (last probe error: ${lastError})` : '';
  throw await proc.failure(`not ready after ${timeoutMs} ms waiting for ${what}${detail}`);
}
