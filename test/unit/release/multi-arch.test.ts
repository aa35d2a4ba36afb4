import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { platformProblems, type LockPackage } from '../../../scripts/release/multi-arch.ts';

describe('the production dependencies on every image platform', () => {
  it('finds nothing that installs differently on linux/amd64 and linux/arm64 in package-lock.json', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockPackage> };
    assert.deepEqual(platformProblems(lock.packages), []);
  });

  it('names a production package with an install script, one limited to other CPUs or systems, and skips development ones', () => {
    const problems = platformProblems({
      '': { version: '0.1.0' },
      'node_modules/native-thing': { version: '1.0.0', hasInstallScript: true },
      'node_modules/@scope/binary-linux-x64': { version: '2.0.0', optional: true, os: ['linux'], cpu: ['x64'] },
      'node_modules/not-on-arm': { version: '3.0.0', cpu: ['!arm64'] },
      'node_modules/darwin-only': { version: '4.0.0', os: ['darwin'] },
      'node_modules/tool/node_modules/dev-native': { version: '5.0.0', dev: true, hasInstallScript: true, cpu: ['x64'] },
      'node_modules/plain': { version: '6.0.0', os: ['linux', '!win32'] },
    });
    assert.deepEqual(problems, [
      'native-thing@1.0.0 runs an install script (native code is built at install)',
      '@scope/binary-linux-x64@2.0.0 does not install on linux/arm64 (os ["linux"], cpu ["x64"])',
      'not-on-arm@3.0.0 does not install on linux/arm64 (os [], cpu ["!arm64"])',
      'darwin-only@4.0.0 does not install on linux/x64 (os ["darwin"], cpu [])',
      'darwin-only@4.0.0 does not install on linux/arm64 (os ["darwin"], cpu [])',
    ]);
  });
});
