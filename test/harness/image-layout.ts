// The operator image's file layout without Docker: reads the Dockerfile and does what it says to /app
// (COPY from the checkout or an earlier stage, the npm steps of a stage), so a test can start the
// image's ENTRYPOINT on exactly those files, read-only, as the image's USER.
import { execFile } from 'node:child_process';
import { chmod, copyFile, cp, mkdir, mkdtemp, lstat, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';
import type { OperatorLaunch } from './operator.ts';

const run = promisify(execFile);

interface Stage {
  name: string;
  /** A folder that stands for the stage's file system root (only what the Dockerfile puts there). */
  root: string;
  workdir: string;
}

export interface ImageLayout {
  /** The folder that stands for the image's root file system; remove it when done. */
  root: string;
  /** The image's WORKDIR, as a folder on this machine. */
  appDir: string;
  entrypoint: string[];
  uid: number;
  gid: number;
  env: Record<string, string>;
  /** A folder holding `node`, to put first on PATH as the base image's /usr/local/bin is. */
  nodeBinDir: string;
  /** RUN steps of the final stage, which set up the base image (packages), not /app: not replayed. */
  baseImageSteps: string[];
  /**
   * A folder nobody but root may write, as on a read-only root file system: the image's HOME and TMPDIR
   * (imageLaunch), and where root puts what the image's user must read, such as a kubeconfig.
   */
  unwritableDir: string;
}

/** Dockerfile instructions, continuation lines joined, comments and blank lines dropped. */
export function dockerfileInstructions(text: string): { op: string; args: string }[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
      return { op: op.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() };
    });
}

/** Builds the layout the Dockerfile at `repo` describes, in a new folder under the system's temp dir. */
export async function buildImageLayout(repo: string): Promise<ImageLayout> {
  const root = await mkdtemp(join(tmpdir(), 'coder-k8s-image-'));
  try {
    return await build(repo, root);
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}

async function build(repo: string, root: string): Promise<ImageLayout> {
  const stages: Stage[] = [];
  let entrypoint: string[] = [];
  let user = '0:0';
  const env: Record<string, string> = {};
  const baseImageSteps: string[] = [];
  const current = () => {
    const stage = stages.at(-1);
    if (!stage) throw new Error('Dockerfile: an instruction before the first FROM');
    return stage;
  };
  // The base image's node, as a file the image's user may run (the machine's may sit under /root).
  const nodeBinDir = join(root, 'usr-local-bin');
  await mkdir(nodeBinDir);
  await copyFile(process.execPath, join(nodeBinDir, 'node'));
  await chmod(nodeBinDir, 0o755);
  const inStage = (stage: Stage, path: string) => join(stage.root, posix.resolve(stage.workdir, path));

  for (const { op, args } of dockerfileInstructions(await readFile(join(repo, 'Dockerfile'), 'utf8'))) {
    switch (op) {
      case 'ARG':
        break;
      case 'FROM': {
        const name = /\sAS\s+(\S+)$/i.exec(args)?.[1] ?? String(stages.length);
        stages.push({ name, root: await mkdtemp(join(root, `stage-${name}-`)), workdir: '/' });
        entrypoint = [];
        user = '0:0';
        for (const key of Object.keys(env)) delete env[key];
        break;
      }
      case 'WORKDIR':
        current().workdir = posix.resolve(current().workdir, args);
        await mkdir(inStage(current(), '.'), { recursive: true });
        break;
      case 'ENV':
        // ENV KEY=VALUE KEY2=VALUE2, or the older ENV KEY VALUE.
        if (!/^\S+=/.test(args)) env[args.split(' ')[0]!] = args.slice(args.indexOf(' ') + 1);
        else for (const [, key = '', value = ''] of args.matchAll(/(\S+?)=(\S*)/g)) env[key] = value;
        break;
      case 'COPY': {
        const words = args.split(' ');
        const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
        const paths = words.filter((w) => !w.startsWith('--'));
        const dest = paths.pop();
        if (!dest || paths.length === 0) throw new Error(`Dockerfile: COPY ${args}: needs a source and a destination`);
        const source = from === undefined ? undefined : stages.find((s) => s.name === from);
        if (from !== undefined && !source) throw new Error(`Dockerfile: COPY --from=${from}: no such stage`);
        for (const path of paths) {
          const src = source ? join(source.root, path) : join(repo, path);
          const target =
            paths.length > 1 || dest.endsWith('/') ? join(inStage(current(), dest), posix.basename(path)) : inStage(current(), dest);
          await mkdir(dirname(target), { recursive: true });
          await cp(src, target, { recursive: true });
        }
        break;
      }
      case 'RUN':
        // npm, node and install steps build /app and are replayed, as the stage's USER; anything else sets up
        // the base image's own packages.
        if (/^(npm|node|install) /.test(args)) {
          const [runUid = 0, runGid = runUid] = user.split(':').map(Number);
          // The image's user must reach the stage's files (temp folders are private to their creator).
          await chmod(root, 0o755);
          await chmod(current().root, 0o755);
          await run('sh', ['-c', args], {
            cwd: inStage(current(), '.'),
            uid: runUid,
            gid: runGid,
            env: { ...env, PATH: `${nodeBinDir}:${process.env.PATH}` },
            maxBuffer: 16 * 1024 * 1024,
          });
        } else {
          baseImageSteps.push(args);
        }
        break;
      case 'USER':
        user = args;
        break;
      case 'ENTRYPOINT':
        entrypoint = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(
          `Dockerfile: ${op} is not understood by test/harness/image-layout.ts; teach it, so the test keeps starting what the image starts`,
        );
    }
  }

  const final = current();
  const [uid = NaN, gid = uid] = user.split(':').map(Number);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`Dockerfile: USER ${user}: expected numeric uid:gid`);
  const unwritableDir = join(root, 'unwritable');
  await mkdir(unwritableDir);
  await readOnly(root);
  return { root, appDir: inStage(final, '.'), entrypoint, uid, gid, env, nodeBinDir, baseImageSteps, unwritableDir };
}

/** The image's ENTRYPOINT on `layout`, as the image starts it: its USER, WORKDIR and environment. */
export function imageLaunch(layout: ImageLayout): OperatorLaunch {
  const [command = '', ...args] = layout.entrypoint;
  return {
    command,
    args,
    cwd: layout.appDir,
    uid: layout.uid,
    gid: layout.gid,
    env: {
      ...layout.env,
      PATH: `${layout.nodeBinDir}:/usr/local/bin:/usr/bin:/bin`,
      HOME: layout.unwritableDir,
      TMPDIR: layout.unwritableDir,
    },
  };
}

/** Everything under `path` owned as it is, no write bit for anyone; folders and programs stay usable. */
async function readOnly(path: string): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    for (const entry of await readdir(path)) await readOnly(join(path, entry));
    await chmod(path, 0o555);
  } else {
    await chmod(path, info.mode & 0o111 ? 0o555 : 0o444);
  }
}
