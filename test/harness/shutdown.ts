// Stopping the harness on SIGINT/SIGTERM: every child process is stopped first, then each resource's
// clean-up (temporary directories) runs, newest first. A second signal while this runs is reported and
// otherwise ignored, so Ctrl-C pressed twice does not leave the etcd data in /dev/shm behind.
export type Cleanup = () => Promise<void>;

let stopProcesses: Cleanup = async () => undefined;
const cleanups: Cleanup[] = [];
let exitCode = 130;
let shuttingDown = false;

/** Runs `cleanup` on a stop signal; returns the function that unregisters it (call it from a normal stop). */
export function registerCleanup(cleanup: Cleanup): () => void {
  cleanups.push(cleanup);
  return () => {
    const index = cleanups.indexOf(cleanup);
    if (index >= 0) cleanups.splice(index, 1);
  };
}

/** process.ts: how every running child is stopped, before any directory is removed. */
export function setProcessStopper(stopper: Cleanup): void {
  stopProcesses = stopper;
}

/** The exit code after a signal: 130 by default (a test run was cut short); 0 for a script whose normal end is a signal. */
export function setSignalExitCode(code: number): void {
  exitCode = code;
}

async function shutdown(signal: NodeJS.Signals | null): Promise<never> {
  if (signal) console.error(`\n${signal}: stopping the harness and removing its temporary directories…`);
  await stopProcesses().catch((err: unknown) => console.error(`stopping processes: ${(err as Error).message}`));
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((err: unknown) => console.error(`clean-up: ${(err as Error).message}`));
  }
  process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (shuttingDown) {
      console.error(`${signal}: clean-up in progress, please wait; it ends by itself.`);
      return;
    }
    shuttingDown = true;
    void shutdown(signal);
  });
}

/**
 * Runs a script's start-up. When a stop signal cuts it short, the failure it causes (a process that
 * exited while awaited) is not reported and the script waits for the clean-up to exit; any other
 * failure is printed and the script exits 1 after removing what was made.
 */
export async function untilStopped<T>(start: () => Promise<T>, script: string): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (!shuttingDown) {
      console.error(`${script}: ${(err as Error).message}`);
      exitCode = 1;
      shuttingDown = true;
      await shutdown(null);
    }
    return new Promise<never>(() => undefined);
  }
}
