// `npm run harness:up`: a control plane (with controllers and kwok) and PostgreSQL until Ctrl-C.
import { parseArgs } from 'node:util';
import { startControlPlane } from './control-plane.ts';
import { startPostgres } from './postgres.ts';
import { setSignalExitCode, untilStopped } from './shutdown.ts';

const { values } = parseArgs({
  options: {
    minimal: { type: 'boolean', default: false },
    'no-postgres': { type: 'boolean', default: false },
  },
});

setSignalExitCode(0);
const started = Date.now();
const { cp, postgres } = await untilStopped(async () => {
  const cp = await startControlPlane({ kwok: !values.minimal });
  const postgres = values['no-postgres'] ? undefined : await startPostgres();
  return { cp, postgres };
}, 'npm run harness:up');
console.log(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`  server:            ${cp.server}`);
console.log(`  admin kubeconfig:  ${cp.adminKubeconfigPath}`);
console.log(`  audit log:         ${cp.auditLogFile}`);
console.log(`  component logs:    ${cp.dir}/*.log`);
if (postgres) console.log(`  postgres:          127.0.0.1:${postgres.port} (user postgres; URL printed by tests only)`);
console.log(`\n  export KUBECONFIG=${cp.adminKubeconfigPath}\n\nCtrl-C stops everything.`);

// Ctrl-C or SIGINT/SIGTERM to npm: shutdown.ts stops every process and removes the temporary directories.
setInterval(() => undefined, 1 << 30);
