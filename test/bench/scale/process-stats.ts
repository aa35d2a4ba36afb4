// A process's resident memory now and at its peak (Linux /proc), for the bench's memory figures.
import { readFile } from 'node:fs/promises';

async function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return kb / 1024;
}

/** Resident memory now, in MiB. */
export const rssMiB = (pid: number) => statusField(pid, 'VmRSS');
/** The highest resident memory since the process started, in MiB. */
export const peakRssMiB = (pid: number) => statusField(pid, 'VmHWM');
