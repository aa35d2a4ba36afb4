// The GitHub workflows cannot run here (they push to a registry); these checks keep them saying what the
// docs and manifests promise: the image the manifests name, both platforms, the tags, the attestations, the
// release files made by the script .ci/run runs, and CI by .ci/run itself.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
}
interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, { steps?: Step[]; needs?: string; uses?: string; 'timeout-minutes'?: number }>;
}

const workflow = (name: string) => parse(readFileSync(`.github/workflows/${name}`, 'utf8')) as Workflow;
const release = workflow('release.yml');
const ci = workflow('ci.yml');
const publish = release.jobs.publish!.steps!;
const step = (steps: Step[], action: string) => steps.find((s) => s.uses?.startsWith(`${action}@`));
const deployedImage = /image: (\S+):v/.exec(readFileSync('deploy/deployment.yaml', 'utf8'))![1];

describe('.github/workflows', () => {
  it('releases on a version tag, only after the tests pass', () => {
    assert.deepEqual(release.on, { push: { tags: ['v*.*.*'] } });
    assert.equal(release.jobs.test!.uses, './.github/workflows/ci.yml');
    assert.equal(release.jobs.publish!.needs, 'test');
  });

  it('pushes the image deploy/deployment.yaml names, for linux/amd64 and linux/arm64, with an SBOM and provenance', () => {
    assert.equal(release.env?.IMAGE, deployedImage);
    const build = step(publish, 'docker/build-push-action')!.with!;
    assert.equal(build.platforms, 'linux/amd64,linux/arm64');
    assert.equal(build.push, true);
    assert.equal(build.sbom, true);
    assert.equal(build.provenance, 'mode=max');
    assert.ok(step(publish, 'docker/setup-qemu-action'), 'arm64 is built under emulation');
    assert.ok(step(publish, 'actions/attest-build-provenance'));
  });

  it('tags the image with the version, and latest only for a release that is not a pre-release', () => {
    const tags = publish.find((s) => s.run?.includes('GITHUB_OUTPUT'))!.run!;
    assert.match(tags, /tags="\$IMAGE:\$GITHUB_REF_NAME"/);
    assert.match(tags, /case "\$GITHUB_REF_NAME" in \*-\*\) ;; \*\) tags="\$tags,\$IMAGE:latest" ;; esac/);
  });

  it('attaches the files scripts/release/artifacts.ts makes for the tag, the script .ci/run runs too', () => {
    assert.ok(publish.some((s) => s.run === 'node scripts/release/artifacts.ts --out release --tag "$GITHUB_REF_NAME"'));
    assert.ok(publish.some((s) => s.run?.includes('gh release create "$GITHUB_REF_NAME" release/*')));
    assert.match(readFileSync('.ci/run', 'utf8'), /node scripts\/release\/artifacts\.ts --out "\$release_dir" --tag/);
  });

  it('runs CI as .ci/run, within its 90 minutes, with the harness cache keyed by its versions', () => {
    const steps = ci.jobs.test!.steps!;
    assert.ok(steps.some((s) => s.run?.endsWith('bash .ci/run')));
    assert.equal(ci.jobs.test!['timeout-minutes'], 90);
    assert.match(String(step(steps, 'actions/cache')!.with!.key), /hashFiles\('test\/harness\/versions\.env'/);
  });
});
