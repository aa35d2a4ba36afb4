// The CEL environment of x-kubernetes-validations rules: the standard library, the strings extension,
// RE2 for matches(), Kubernetes equality; and compiled rules, cached by their text.
import { celEnv, parse, plan, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { equalityFunctions } from './cel-equality.ts';
import type { CelBound } from './cel-value.ts';
import { re2 } from './re2.ts';

const env = celEnv({ funcs: [...strings, ...equalityFunctions], re2: { compile: re2 } });

export type CompiledRule = (bindings: { self: CelBound; oldSelf?: CelBound }) => CelResult;

const compiled = new Map<string, CompiledRule>();

/** The evaluator of a rule; it parses once. Throws when the rule does not parse (codegen checks that). */
export function compileRule(rule: string): CompiledRule {
  let program = compiled.get(rule);
  if (!program) {
    const run = plan(env, parse(rule));
    program = (bindings) => run(bindings as never);
    compiled.set(rule, program);
  }
  return program;
}
