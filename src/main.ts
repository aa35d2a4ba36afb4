// coder-k8s: the operator binary. `coder-k8s validate ...` checks manifests offline; anything else runs
// the operator in the mode --app names.
import { readFileSync } from 'node:fs';
import { StartupError, UsageError } from './app/errors.ts';
import { parseOperatorArgs, usage } from './app/options.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

async function main(args: string[]): Promise<number> {
  if (args[0] === 'validate') {
    const { runValidateCommand } = await import('./app/validate/command.ts');
    return runValidateCommand(args.slice(1));
  }
  const parsed = parseOperatorArgs(args);
  if (parsed === 'help') {
    console.log(usage);
    return 0;
  }
  if (parsed === 'version') {
    console.log(`coder-k8s ${version}`);
    return 0;
  }
  const { runOperator } = await import('./app/run-operator.ts');
  return runOperator(parsed, version);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    const known = err instanceof UsageError || err instanceof StartupError;
    console.error(`coder-k8s: ${known ? err.message : (err.stack ?? err.message)}`);
    if (err instanceof UsageError) console.error(`\nRun coder-k8s --help for the flags.`);
    process.exitCode = 1;
  },
);
