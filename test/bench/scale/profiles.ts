// BENCH_PROFILE_DIR=<dir> makes the scale bench say where the time goes: kube-apiserver's CPU profile (Go pprof;
// read it with `go tool pprof -top <file>`) of each first-round run from its 5th to its 35th second, and the
// operator's own (operator-launch.ts).
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { KubeHttp } from '../../../src/runtime/kube-http.ts';

const dir = process.env.BENCH_PROFILE_DIR;

/** Whether kube-apiserver must serve /debug/pprof. */
export const profiling = dir !== undefined;

/** Profiles kube-apiserver (through `admin`) into `<dir>/apiserver-<label>.pprof` while a run goes on; resolves when written. */
export async function profileApiServer(admin: KubeHttp, label: string): Promise<void> {
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const res = await admin.open('GET', '/debug/pprof/profile', { query: { seconds: 30 }, accept: 'application/octet-stream' });
  if (res.statusCode !== 200) throw new Error(`kube-apiserver's /debug/pprof/profile answered ${res.statusCode}`);
  await pipeline(res, createWriteStream(join(dir, `apiserver-${label}.pprof`)));
}
