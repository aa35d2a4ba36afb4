import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  coderFeatureGates,
  coderHasFeature,
  newestCheckedCoderRelease,
  testedCoderRelease,
  type CoderFeatureGate,
} from '../../../../../src/controllers/shared/coder-object/coder-releases.ts';

const doc = readFileSync(new URL('../../../../../docs/reference/coder-versions.md', import.meta.url), 'utf8');
const versions = readFileSync(new URL('../../../../harness/versions.env', import.meta.url), 'utf8');

/** The rows of the table between the coder-releases markers: feature, needs, reports, evidence (backticks dropped). */
function documentedRows(): string[][] {
  const table = doc.split('<!-- coder-releases:begin -->')[1]?.split('<!-- coder-releases:end -->')[0] ?? '';
  return table
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim().replaceAll('`', '')),
    );
}

describe('Coder releases of the version gates', () => {
  it('docs/reference/coder-versions.md lists every gate of coder-releases.ts with its release and evidence, and nothing else', () => {
    const gates = Object.values(coderFeatureGates) as CoderFeatureGate[];
    assert.deepEqual(
      documentedRows().map(([feature, needs, , evidence]) => ({ feature, needs, evidence })),
      gates.map((g) => ({ feature: g.what, needs: g.since ?? 'no release', evidence: g.evidence })),
    );
  });

  it('names the release the real-Coder suite runs and the newest release checked', () => {
    assert.equal(/^CODER_VERSION=(.+)$/m.exec(versions)?.[1], testedCoderRelease);
    assert.ok(doc.includes(`**${testedCoderRelease.slice(1)}**`) || doc.includes(`**${testedCoderRelease}**`), 'the tested release');
    assert.ok(doc.includes(`**${newestCheckedCoderRelease}**`), 'the newest release checked');
  });

  const rows: [string | undefined, keyof typeof coderFeatureGates, boolean | undefined][] = [
    ['v2.26.1', 'aiProviders', false],
    ['v2.33.9', 'aiProviders', false],
    ['v2.34.0', 'aiProviders', true],
    ['v2.35.3', 'aiProviderIcon', false],
    ['v2.36.0', 'aiProviderIcon', true],
    ['v2.36.0', 'aiProviderUpstreamHeaders', false],
    ['v9.0.0', 'aiProviderUpstreamHeaders', false],
    ['v2.35.9', 'aiGatewayKeys', false],
    ['v2.36.0-rc.1', 'aiGatewayKeys', true],
    ['v2.26.1', 'mcpServerConfigs', false],
    ['v2.34.2', 'mcpServerConfigs', true],
    ['v0.0.0-devel+abc123', 'aiProviderUpstreamHeaders', undefined],
    ['v0.0.0-devel+abc123', 'aiGatewayKeys', undefined],
    [undefined, 'aiProviders', undefined],
  ];
  for (const [version, feature, expected] of rows) {
    it(`Coder ${version} has ${feature}: ${expected}`, () => assert.equal(coderHasFeature(version, feature), expected));
  }
});
