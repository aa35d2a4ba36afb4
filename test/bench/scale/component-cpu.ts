// CPU time by program on this machine (Linux /proc): which of kube-apiserver, etcd, the controllers, kwok,
// the operator and the bench itself a run's CPU went to, how much was left idle, and how much the host took
// for other guests (a shared machine's runs differ most by that), so the bench can say where the time goes.
import { readdir, readFile } from 'node:fs/promises';
import { basename } from 'node:path';

const ticksPerSecond = 100;

/**
 * Seconds of CPU (user and system) by program name: of every process whose command line mentions one of
 * `markers`, of the processes `extra` names, and of the bench itself.
 */
export async function cpuByProgram(markers: string[], extra: Record<string, number> = {}): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  const add = (name: string, seconds: number) => totals.set(name, (totals.get(name) ?? 0) + seconds);
  const named = new Set(Object.values(extra));
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || named.has(Number(entry))) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!markers.some((m) => cmdline.includes(m))) continue;
    const seconds = await cpuSeconds(Number(entry));
    if (seconds !== undefined) add(basename(cmdline.split('\0')[0]!), seconds);
  }
  for (const [name, pid] of Object.entries(extra)) {
    const seconds = await cpuSeconds(pid);
    if (seconds !== undefined) add(name, seconds);
  }
  const self = process.cpuUsage();
  add('bench', (self.user + self.system) / 1e6);
  // The machine's own lines: CPU nobody used, and CPU the hypervisor gave to another guest.
  const [, , , , idle, , , , steal] = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.split(/\s+/).map(Number);
  add('(idle)', idle! / ticksPerSecond);
  add('(stolen by the host)', steal! / ticksPerSecond);
  return totals;
}

/** CPU seconds (user and system) a process has spent; undefined once it is gone. */
export async function cpuSeconds(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** `kube-apiserver 41.2 s, etcd 9.8 s, …`: the CPU each program used between two readings, largest first. */
export function cpuBetween(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, seconds]) => [name, seconds - (before.get(name) ?? 0)] as const)
    .filter(([, seconds]) => seconds >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`)
    .join(', ');
}
