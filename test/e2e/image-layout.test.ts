// The image as deployed, without Docker: the files the Dockerfile puts in /app, read-only, started by its
// ENTRYPOINT as its USER, with HOME and TMPDIR unwritable (deploy/deployment.yaml sets
// readOnlyRootFilesystem and mounts nothing writable), against a real control plane under the generated role.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { buildImageLayout, imageLaunch, type ImageLayout } from '../harness/image-layout.ts';
import { request } from 'node:https';
import { entrypointNodeFlags, installOperatorRbac, operatorNamespace, startOperator, type OperatorLaunch } from '../harness/operator.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { freePort } from '../harness/ports.ts';
import { eventually } from '../harness/wait.ts';

const repo = process.cwd();
const runsAsRoot = process.getuid?.() === 0;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the operator image layout, read-only, as uid 65532', { skip: !runsAsRoot && 'needs root to start the image as its USER' }, () => {
  let layout: ImageLayout;
  let launch: OperatorLaunch;
  let cp: ControlPlane | undefined;

  /** Runs `command` as the image would: its user, working directory and environment. */
  const runAsImage = (command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        command,
        args,
        { cwd: launch.cwd, uid: launch.uid, gid: launch.gid, env: { ...launch.env, ...env }, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
    });
  const runImage = (args: string[]) => runAsImage(launch.command, [...launch.args, ...args]);

  before(async () => {
    layout = await buildImageLayout(repo);
    launch = imageLaunch(layout);
  });
  after(async () => {
    await cp?.stop();
    if (layout) await rm(layout.root, { recursive: true, force: true });
  });

  it('runs as the non-root uid 65532 under an init that forwards signals', () => {
    assert.deepEqual([layout.uid, layout.gid], [65532, 65532]);
    assert.equal(layout.entrypoint[0], '/usr/bin/tini', 'tini is PID 1');
    assert.ok(
      layout.baseImageSteps.some((step) => /apt-get install .*\btini\b/.test(step)),
      'the final stage installs tini',
    );
  });

  it('holds production dependencies and the runtime sources only', async () => {
    assert.deepEqual((await readdir(layout.appDir)).sort(), ['.compile-cache', 'bin', 'generated', 'node_modules', 'package.json', 'src']);
    const modules = await readdir(join(layout.appDir, 'node_modules'));
    for (const devOnly of ['typescript', 'ts-morph', 'openapi-typescript', 'json-schema-to-typescript']) {
      assert.ok(!modules.includes(devOnly), `${devOnly} is not in the image`);
    }
    assert.ok(modules.includes('pino') && modules.includes('@kubernetes'), 'runtime dependencies are');
  });

  it("holds every module with its types stripped, in the compile cache of the image's user", async () => {
    assert.equal(layout.env.NODE_COMPILE_CACHE, '.compile-cache');
    const cache = join(layout.appDir, '.compile-cache');
    const forUser = (await readdir(cache)).filter((dir) => dir.endsWith(`-${layout.uid}`));
    assert.equal(forUser.length, 1, `one cache folder for uid ${layout.uid} in ${cache}`);
    // Node names the folder after V8's cache tag, which changes with V8's flags: it must be the ENTRYPOINT's.
    const tag = await runAsImage('node', [...entrypointNodeFlags(layout.entrypoint), '-p', "require('v8').cachedDataVersionTag()"]);
    assert.equal(tag.code, 0, tag.stderr);
    const [, folderTag = ''] = /-([0-9a-f]+)-\d+$/.exec(forUser[0]!) ?? [];
    assert.equal(parseInt(folderTag, 16), Number(tag.stdout), `${forUser[0]} was filled under the ENTRYPOINT's Node.js flags`);
    const sources = (await Promise.all(['src', 'generated'].map((dir) => readdir(join(layout.appDir, dir), { recursive: true }))))
      .flat()
      .filter((file) => file.endsWith('.ts'));
    // Node keeps two entries per module: its stripped source and V8's code for it.
    const entries = await readdir(join(cache, forUser[0]!));
    assert.ok(entries.length >= 2 * sources.length, `${entries.length} cache entries for ${sources.length} sources`);
    // The first start (nothing has written to the cache yet) strips no module's types itself: stripping even one
    // loads Node's TypeScript compiler, about 17 MiB and 0.1 s of CPU on every start of a read-only image.
    const started = await runAsImage('node', [...entrypointNodeFlags(layout.entrypoint), 'bin/coder-k8s.js', '--version'], {
      NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
    });
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stderr, /retrieving transpile cache for StrippedTypeScript \S+\/src\/main\.ts\.\.\.success/);
    assert.doesNotMatch(started.stderr, /no transpile cache/);
  });

  it('prints its version and help with nothing writable', async () => {
    const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { version: string };
    const shown = await runImage(['--version']);
    assert.deepEqual(shown, { code: 0, stdout: `coder-k8s ${version}\n`, stderr: '' });
    const help = await runImage(['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /--app/);
    assert.equal(help.stderr, '');
  });

  it('starts a controller that becomes ready under its generated role, and stops cleanly on SIGTERM', async () => {
    cp = await startControlPlane();
    const kubeconfig = join(layout.unwritableDir, 'operator.kubeconfig');
    // The layout is read-only to the operator, not to root: put its credentials where uid 65532 can read them.
    await writeFile(kubeconfig, await readFile(await installOperatorRbac(cp), 'utf8'), { mode: 0o444 });
    const op = await startOperator(cp, kubeconfig, { launch });
    // Ready means caches synced; leading (and starting the controllers) may come a moment later.
    await eventually('the operator to lead and start its controllers', async () =>
      /"msg":"controllers started"/.test(await readFile(op.logFile, 'utf8')),
    );
    await op.process.stop(15_000);
    assert.equal(op.process.exitStatus, 0, 'tini passed SIGTERM on and the operator drained and exited 0');
    assert.doesNotMatch(await readFile(op.logFile, 'utf8'), /EACCES|EROFS/, 'nothing tried to write');
  });

  it("starts --app=all, deploy/deployment.yaml's mode: ready once the controllers' caches synced and the aggregated API server serves", async () => {
    cp ??= await startControlPlane();
    const kubeconfig = join(layout.unwritableDir, 'operator-all.kubeconfig');
    await writeFile(kubeconfig, await readFile(await installOperatorRbac(cp), 'utf8'), { mode: 0o444 });
    const port = await freePort();
    const op = await startOperator(cp, kubeconfig, { launch, app: 'all', args: [`--secure-port=${port}`, '--bind-address=127.0.0.1'] });
    const health = await new Promise<number>((resolve, reject) =>
      request({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false }, (res) => resolve(res.statusCode ?? 0))
        .on('error', reject)
        .end(),
    );
    assert.equal(health, 200, 'the aggregated API server answers on its HTTPS port');
    const secret = JSON.parse(
      await kubectlOk(cp.adminKubeconfigPath, ['get', 'secret', '-n', operatorNamespace, 'coder-k8s-apiserver-tls', '-o', 'json']),
    ) as { data: Record<string, string> };
    assert.deepEqual(
      Object.keys(secret.data).sort(),
      ['ca.crt', 'ca.key', 'tls.crt', 'tls.key'],
      'the serving CA and the certificate it signed',
    );
    await eventually('the operator to lead and start its controllers', async () =>
      /"msg":"controllers started"/.test(await readFile(op.logFile, 'utf8')),
    );
    await op.process.stop(15_000);
    assert.equal(op.process.exitStatus, 0);
    assert.doesNotMatch(await readFile(op.logFile, 'utf8'), /EACCES|EROFS/, 'nothing tried to write');
  });
});
