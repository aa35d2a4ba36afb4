// The editor and viewer ClusterRoles of config/rbac/ on a real control plane whose kube-controller-manager
// aggregates them: a namespace's `edit` user may then create CoderTemplateTests, a `view` user may read them
// but neither create them nor read Secrets, and the per-kind editor role alone gives no Secret either.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { eventually } from '../harness/wait.ts';

const namespace = 'team-a';
// As docs/how-to/user-roles.md binds them: edit and view to groups, the kind's editor role to one user.
const groups = { edit: 'team-a', view: 'auditors' };
const users = { editor: 'erin', viewer: 'victor', templateTester: 'tess' };
const groupOf: Record<string, string | undefined> = { [users.editor]: groups.edit, [users.viewer]: groups.view };
const sample = readFileSync('config/samples/coder_v1alpha1_codertemplatetest.yaml', 'utf8').replace(
  /^ {2}namespace: coder$/m,
  `  namespace: ${namespace}`,
);

describe('editor and viewer roles per kind', () => {
  let cp: ControlPlane;
  let admin: string;

  const bind = (name: string, clusterRole: string, subject: string) =>
    kubectlOk(admin, ['-n', namespace, 'create', 'rolebinding', name, `--clusterrole=${clusterRole}`, subject]);
  const as = (user: string) => [`--as=${user}`, ...(groupOf[user] ? [`--as-group=${groupOf[user]}`] : [])];
  const canI = async (user: string, ...args: string[]) =>
    (await kubectl(admin, ['-n', namespace, 'auth', 'can-i', ...args, ...as(user)])).stdout.trim();
  /** Creates the sample CoderTemplateTest under `user`'s own credentials, named `name`. */
  const createAs = async (user: string, name: string) => {
    const kubeconfig = await cp.userKubeconfig(user, groupOf[user] ? [groupOf[user]] : []);
    return kubectl(kubeconfig, ['create', '-f', '-'], sample.replace(/^ {2}name: docker-active$/m, `  name: ${name}`));
  };

  before(async () => {
    // The clusterrole-aggregation controller of kube-controller-manager is what fills edit and view.
    cp = await startControlPlane({ controllers: true });
    admin = cp.adminKubeconfigPath;
    // The deploy guide's install step: the roles come with config/rbac/.
    await kubectlOk(admin, ['create', 'namespace', 'coder-system']);
    await kubectlOk(admin, ['apply', '-f', 'config/crd/bases/', '-f', 'config/rbac/']);
    await kubectlOk(admin, ['create', 'namespace', namespace]);
    await bind('team-a-edit', 'edit', `--group=${groups.edit}`);
    await bind('auditors-view', 'view', `--group=${groups.view}`);
    await bind('tess-template-tests', 'coder-k8s-codertemplatetest-editor', `--user=${users.templateTester}`);
  });
  after(() => cp?.stop());

  it('lets a user bound to the built-in edit role create a CoderTemplateTest once the roles are aggregated', async () => {
    await eventually(`${users.editor} (edit) may create codertemplatetests`, async () =>
      (await canI(users.editor, 'create', 'codertemplatetests.coder.com')) === 'yes' ? true : undefined,
    );
    const created = await createAs(users.editor, 'by-edit');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(await canI(users.editor, 'delete', 'codercontrolplanes.coder.com'), 'yes');
    assert.equal(await canI(users.editor, 'get', 'codertemplatetests.coder.com', '--subresource=status'), 'yes');
  });

  it('lets a user bound to the built-in view role get and list CoderTemplateTests, but not create them or read Secrets', async () => {
    await eventually(`${users.viewer} (view) may list codertemplatetests`, async () =>
      (await canI(users.viewer, 'list', 'codertemplatetests.coder.com')) === 'yes' ? true : undefined,
    );
    const viewer = await cp.userKubeconfig(users.viewer, [groups.view]);
    await kubectlOk(admin, ['create', '-f', '-'], sample.replace(/^ {2}name: docker-active$/m, '  name: seen-by-view'));
    assert.match(
      await kubectlOk(viewer, ['-n', namespace, 'get', 'codertemplatetests', '-o', 'name']),
      /codertemplatetest\.coder\.com\/seen-by-view/,
    );
    assert.equal(
      (await kubectlOk(viewer, ['-n', namespace, 'get', 'codertemplatetest', 'seen-by-view', '-o', 'jsonpath={.spec.template}'])).trim(),
      'coder.docker',
    );

    assert.equal(await canI(users.viewer, 'create', 'codertemplatetests.coder.com'), 'no');
    const created = await createAs(users.viewer, 'by-view');
    assert.notEqual(created.code, 0, 'a view user created a CoderTemplateTest');
    assert.match(created.stderr, /forbidden/);
    assert.equal(await canI(users.viewer, 'get', 'secrets'), 'no');
    assert.equal(await canI(users.viewer, 'list', 'secrets'), 'no');
  });

  it('lets a user bound only to coder-k8s-codertemplatetest-editor create a CoderTemplateTest, and nothing else', async () => {
    assert.equal(await canI(users.templateTester, 'create', 'codertemplatetests.coder.com'), 'yes');
    const created = await createAs(users.templateTester, 'by-kind-editor');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(await canI(users.templateTester, 'get', 'secrets'), 'no');
    assert.equal(await canI(users.templateTester, 'list', 'secrets'), 'no');
    assert.equal(await canI(users.templateTester, 'create', 'codercontrolplanes.coder.com'), 'no');
    assert.equal(await canI(users.templateTester, 'update', 'codertemplatetests.coder.com', '--subresource=status'), 'no');
    // Only the namespace it is bound in.
    assert.equal(
      (
        await kubectl(admin, ['auth', 'can-i', `--as=${users.templateTester}`, '-n', 'default', 'create', 'codertemplatetests.coder.com'])
      ).stdout.trim(),
      'no',
    );
  });
});
