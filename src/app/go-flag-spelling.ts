// Go's flag package spells a flag with one dash or two (-app=controller, --app=controller); the Go original's
// manifests and scripts use the single dash. The operator takes both: a known long flag written with one dash
// is read as the same flag with two, and an unknown one is refused by its name, as it was written.
import { UsageError } from './errors.ts';

/** A long flag as Go writes it: one dash, a name of two or more characters, and maybe `=value`. */
const singleDash = /^-([a-z][a-z0-9-]+)(=.*)?$/s;

/**
 * `args` with every known long flag spelt with two dashes. A word that a flag before it takes as its value
 * (`--kubeconfig -x`, `-app controller`) and every word after `--` are left as they are.
 */
export function withDoubleDash(args: readonly string[], flags: Readonly<Record<string, { type: 'string' | 'boolean' }>>): string[] {
  const out: string[] = [];
  let takesValue = false;
  for (const [i, arg] of args.entries()) {
    if (arg === '--') return [...out, ...args.slice(i)];
    if (takesValue) {
      out.push(arg);
      takesValue = false;
      continue;
    }
    const match = singleDash.exec(arg);
    const name = match ? match[1]! : /^--([^=]+)$/.exec(arg)?.[1];
    if (match && !Object.hasOwn(flags, match[1]!)) {
      throw new UsageError(`unknown flag ${arg.replace(/=.*$/s, '')}; --help lists the flags (each may be written -name or --name)`);
    }
    // A string flag without `=value` takes the next word as its value.
    takesValue = name !== undefined && !match?.[2] && flags[name]?.type === 'string';
    out.push(match ? `-${arg}` : arg);
  }
  return out;
}
