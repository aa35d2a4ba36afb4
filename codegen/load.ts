// Stage 1: load the kind files and shared pieces of schemas/, with their $refs resolved.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConditionSets, resolveConditions, unreferencedSets, type ConditionDeclaration, type ConditionSet } from './conditions.ts';
import type { JsonSchema } from './json-schema.ts';
import { kubernetesDefinitionsFile, schemasDir } from './paths.ts';
import { resolveRefs } from './resolve.ts';
import { SchemaRuleError } from './schema-rule-error.ts';

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export interface KindSource {
  /** Path relative to schemas/, e.g. codercontrolplanes.yaml */
  file: string;
  group: string;
  version: string;
  kind: string;
  scope: 'Namespaced' | 'Cluster';
  names: { plural: string; singular: string; listKind: string; shortNames?: string[]; categories?: string[] };
  printerColumns: PrinterColumn[];
  conditions: Record<string, ConditionDeclaration>;
  schema: JsonSchema;
}

/** A kind with its schema's $refs resolved (Kubernetes and common types marked, see resolve.ts). */
export interface ResolvedKind extends KindSource {
  resolved: JsonSchema;
}

export interface CommonSchema {
  /** Path relative to schemas/, e.g. common/condition.yaml */
  file: string;
  schema: JsonSchema;
}

export function loadCommonSchemas(dir = schemasDir): CommonSchema[] {
  return readdirSync(join(dir, 'common'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const path = join(dir, 'common', f);
      return { file: `common/${f}`, schema: resolveRefs(parse(readFileSync(path, 'utf8')) as JsonSchema, path) };
    });
}

function throwProblems(problems: string[]): void {
  if (problems.length) throw new SchemaRuleError(`x-coder-conditions breaks the rules (schemas/README.md):\n  ${problems.join('\n  ')}`);
}

/** The shared condition sets of schemas/common/conditions/. */
export function loadSharedConditions(dir = schemasDir): ConditionSet[] {
  const problems: string[] = [];
  const sets = loadConditionSets(dir, problems);
  throwProblems(problems);
  return sets;
}

export function loadKinds(dir = schemasDir, sets = loadSharedConditions(dir)): ResolvedKind[] {
  const problems: string[] = [];
  const kinds = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const doc = parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      const missing = ['group', 'version', 'kind', 'scope', 'names', 'schema'].filter((k) => doc[k] === undefined);
      if (missing.length) throw new Error(`schemas/${file}: missing ${missing.join(', ')}`);
      return {
        file,
        group: doc.group as string,
        version: doc.version as string,
        kind: doc.kind as string,
        scope: doc.scope as KindSource['scope'],
        names: doc.names as KindSource['names'],
        printerColumns: (doc.printerColumns ?? []) as PrinterColumn[],
        conditions: resolveConditions(file, doc['x-coder-conditions'], dir, sets, problems),
        schema: doc.schema as JsonSchema,
        resolved: resolveRefs(doc.schema as JsonSchema, join(dir, file)),
      };
    });
  problems.push(...unreferencedSets(sets, kinds));
  throwProblems(problems);
  return kinds;
}

/** The Kubernetes definitions that schemas/ references (see kubernetes-dump.ts). */
export function loadKubernetesDefinitions(file = kubernetesDefinitionsFile): Record<string, JsonSchema> {
  return (parse(readFileSync(file, 'utf8')) as { definitions: Record<string, JsonSchema> }).definitions;
}
