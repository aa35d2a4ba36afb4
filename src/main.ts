// coder-k8s: the operator binary. `coder-k8s validate ...` checks manifests offline; anything else runs
// the operator in the mode --app names.
import { fs } from './runtime/builtins.ts';
import { UsageError } from './app/errors.ts';
import { StartupError } from './runtime/startup-error.ts';
import { parseOperatorArgs, usage } from './app/options.ts';

const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

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

/** --log-level=debug or trace, however given: only then does an unexpected error show its stack. */
function wantsStack(args: string[]): boolean {
  const i = args.findIndex((a) => a === '--log-level' || a.startsWith('--log-level='));
  const level = i < 0 ? undefined : args[i] === '--log-level' ? args[i + 1] : args[i]!.slice('--log-level='.length);
  return level === 'debug' || level === 'trace';
}

/**
 * Runs the command `args` give and sets the exit code. bin/coder-k8s.js calls it, so that importing this module
 * runs nothing and bin/fill-compile-cache.js can cache it like every other module.
 */
export function runCommand(args: string[]): Promise<void> {
  return main(args).then(
    (code) => {
      process.exitCode = code;
    },
    (err: Error) => {
      const known = err instanceof UsageError || err instanceof StartupError;
      const stack = !known && wantsStack(args);
      const message = String(err?.message ?? err).split('\n')[0];
      const hint = known ? '' : ' (run with --log-level=debug for the stack trace)';
      console.error(`coder-k8s: ${stack ? (err.stack ?? message) : message + hint}`);
      if (err instanceof UsageError) console.error(`\nRun coder-k8s --help for the flags.`);
      process.exitCode = 1;
    },
  );
}
