// Exits with what to do when this Node.js is older than package.json's engines.node: the sources are
// TypeScript run by Node's own type stripping, which older versions lack (they fail with obscure errors).
import { createRequire } from 'node:module';

const floor = createRequire(import.meta.url)('../package.json').engines.node;
const [wantMajor, wantMinor = 0] = floor
  .replace(/^>=\s*/, '')
  .split('.')
  .map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  process.stderr.write(
    `coder-k8s needs Node.js ${floor}; this is Node.js ${process.versions.node} (${process.execPath}).\n` +
      'Install Node.js 24 LTS with your usual installer (nvm install 24, fnm, Volta, your distribution),\n' +
      'or on Linux use the pinned build this project caches: PATH="$(bash .ci/install-node.sh):$PATH"\n',
  );
  process.exit(1);
}
