// Stage: a typed client per kind (generated/clients/<singular>.ts) and an index of every kind's names,
// printed with ts-morph. The client is the runtime's CustomResourceClient with the kind's types.
import { Project, QuoteKind, VariableDeclarationKind, type SourceFile } from 'ts-morph';
import type { KindSource } from './load.ts';

const project = new Project({ useInMemoryFileSystem: true, manipulationSettings: { quoteKind: QuoteKind.Single } });

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function printed(build: (file: SourceFile) => void): string {
  const file = project.createSourceFile(`/out-${Math.random()}.ts`, '', { overwrite: true });
  build(file);
  file.formatText({ indentSize: 2 });
  const text = file.getFullText();
  project.removeSourceFile(file);
  return text;
}

function objectLiteral(values: Record<string, string | boolean>): string {
  const entries = Object.entries(values).map(([k, v]) => `  ${k}: ${typeof v === 'string' ? `'${v}'` : String(v)},`);
  return `{\n${entries.join('\n')}\n}`;
}

function resourceConstName(kind: KindSource): string {
  return `${lowerFirst(kind.kind)}Resource`;
}

export function clientFile(kind: KindSource): string {
  const typesModule = `../types/${kind.names.singular}.ts`;
  return printed((file) => {
    file.addImportDeclarations([
      { moduleSpecifier: '@kubernetes/client-node', namedImports: ['KubeConfig'], isTypeOnly: true },
      { moduleSpecifier: '../../src/runtime/custom-resource-client.ts', namedImports: ['CustomResourceClient', 'type ResourceKind'] },
      { moduleSpecifier: typesModule, namedImports: [kind.kind, kind.names.listKind], isTypeOnly: true },
    ]);
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`Group, version and names of ${kind.kind}.`],
      declarations: [
        {
          name: resourceConstName(kind),
          type: 'ResourceKind',
          initializer: objectLiteral({
            group: kind.group,
            version: kind.version,
            apiVersion: `${kind.group}/${kind.version}`,
            kind: kind.kind,
            listKind: kind.names.listKind,
            plural: kind.names.plural,
            namespaced: kind.scope === 'Namespaced',
          }),
        },
      ],
    });
    file.addTypeAlias({
      isExported: true,
      name: `${kind.kind}Client`,
      type: `CustomResourceClient<${kind.kind}, ${kind.names.listKind}>`,
    });
    file.addFunction({
      isExported: true,
      name: `${lowerFirst(kind.kind)}Client`,
      docs: [
        `A client for ${kind.names.plural}.${kind.group}: get, list, watch, create, replace, merge and apply patches, status, delete.`,
      ],
      parameters: [{ name: 'kubeConfig', type: 'KubeConfig' }],
      returnType: `${kind.kind}Client`,
      statements: `return new CustomResourceClient<${kind.kind}, ${kind.names.listKind}>(kubeConfig, ${resourceConstName(kind)});`,
    });
  });
}

export function clientsIndexFile(kinds: KindSource[]): string {
  return printed((file) => {
    for (const kind of kinds) {
      file.addExportDeclaration({ moduleSpecifier: `./${kind.names.singular}.ts` });
    }
    file.addImportDeclarations(
      kinds.map((kind) => ({
        moduleSpecifier: `./${kind.names.singular}.ts`,
        namedImports: [resourceConstName(kind)],
      })),
    );
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['Every kind the operator serves, in the file order of schemas/.'],
      declarations: [{ name: 'allResources', initializer: `[${kinds.map(resourceConstName).join(', ')}] as const` }],
    });
  });
}
