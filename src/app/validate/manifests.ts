// Manifests checked offline: every document of a multi-document YAML (or JSON) file, and every item of
// a v1 List, validated with the generated validator of its kind. Objects of other API groups are skipped.
// Each document is measured before it is parsed: one over the API server's 3 MiB limit is refused unparsed,
// and alias expansion is bounded, so no input costs more than its size in memory.
import { isMap, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import { kindValidators } from '../../../generated/validators/index.ts';
import type { ValidationError } from '../../validation/error.ts';
import { isObject } from '../../validation/structural.ts';
import { runValidation } from '../../validation/validate.ts';
import { validatorFor } from '../../validation/validator-lookup.ts';
import { pathOffset } from './source-position.ts';
import { syntaxProblem, yamlReason } from './yaml-syntax-error.ts';

/** The API server refuses a request body larger than this (etcd's request limit); so does validate, per document. */
const maxDocumentBytes = 3 * 1024 * 1024;
/** More aliases than this in one document is refused, like the YAML library's guard against "billion laughs". */
const maxAliases = 100;

/** The API group whose kinds the validators know; an unknown kind of it is an error, not a skip. */
const ourGroup = 'coder.com';

export interface ManifestProblem {
  /** 1-based index of the document in its file. */
  doc: number;
  /** 1-based line and column in the file: of the field the path names, or of the document. */
  line: number;
  column: number;
  /** `<kind>/<name>` of the object, or what stands for it when the document is not an object. */
  object: string;
  /** A field path, or empty for problems with the whole document. */
  path: string;
  message: string;
}

export interface ManifestReport {
  problems: ManifestProblem[];
  /** Objects checked with a validator. */
  checked: number;
  /** Objects of other API groups, not checked. */
  skipped: number;
}

function objectName(obj: Record<string, unknown>): string {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const name =
    typeof meta.name === 'string' && meta.name
      ? meta.name
      : typeof meta.generateName === 'string' && meta.generateName
        ? `${meta.generateName}*`
        : '<no name>';
  return `${typeof obj.kind === 'string' && obj.kind ? obj.kind : '<no kind>'}/${name}`;
}

function knownKinds(group: string): string {
  return kindValidators
    .filter((v) => v.apiVersion.startsWith(`${group}/`))
    .map((v) => `${v.apiVersion} ${v.kind}`)
    .join(', ');
}

/** Where in the file a problem is: the document, and a node of it when it parsed. */
interface Place {
  doc: number;
  node?: Node | null;
  /** Line and column of an offset in the document's text. */
  position: (offset: number) => { line: number; column: number };
  /** Position of the document's first line, for problems found before it parsed. */
  start: { line: number; column: number };
}

function problemAt(place: Place, object: string, path: string, message: string): ManifestProblem {
  const where = place.node ? place.position(pathOffset(place.node, path)) : place.start;
  return { doc: place.doc, ...where, object, path, message };
}

function checkObject(value: unknown, place: Place, report: ManifestReport): void {
  if (!isObject(value)) {
    report.problems.push(problemAt(place, '<document>', '', 'is not an object (a mapping with apiVersion, kind and metadata)'));
    return;
  }
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  if (apiVersion === 'v1' && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    value.items.forEach((item, i) => {
      checkObject(item, { ...place, node: listItemNode(place.node, i) }, report);
    });
    return;
  }
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const validator = validatorFor(kindValidators, apiVersion, String(value.kind));
  if (!validator) {
    if (group === ourGroup) {
      report.problems.push(
        problemAt(
          place,
          objectName(value),
          '',
          `unknown kind ${String(value.kind)} in ${apiVersion}; this version of coder-k8s knows ${knownKinds(group)}`,
        ),
      );
    } else report.skipped++;
    return;
  }
  report.checked++;
  const errors: ValidationError[] = runValidation(validator, value);
  for (const e of errors) report.problems.push(problemAt(place, objectName(value), e.path, e.message));
}

/** The node of item `i` of a List, to place the item's problems. */
function listItemNode(root: Node | null | undefined, i: number): Node | undefined {
  if (!isMap(root)) return undefined;
  const items = root.get('items', true);
  return isSeq(items) ? (items.items[i] as Node | undefined) : undefined;
}

/**
 * The text of each document. A document starts at `---` at the start of a line: YAML forbids that
 * sequence there inside any scalar, so splitting the text agrees with the parser. Comments and
 * directives before the first marker belong to the first document.
 */
export function splitDocuments(text: string): string[] {
  const starts = [0];
  for (const m of text.matchAll(/^---(?=[ \t\r\n]|$)/gm)) if (m.index > 0) starts.push(m.index);
  const chunks = starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length));
  const hasContent = (chunk: string) =>
    chunk.split('\n').some((line) => {
      const t = line.trim();
      return t !== '' && !t.startsWith('#') && !t.startsWith('%');
    });
  if (chunks.length > 1 && !hasContent(chunks[0]!)) chunks.splice(0, 2, chunks[0]! + chunks[1]!);
  return chunks;
}

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** Checks every document of a YAML or JSON text. */
export function checkManifests(text: string): ManifestReport {
  const report: ManifestReport = { problems: [], checked: 0, skipped: 0 };
  let linesBefore = 0;
  splitDocuments(text).forEach((chunk, i) => {
    const lineOffset = linesBefore;
    linesBefore += chunk.split('\n').length - 1;
    const lineCounter = new LineCounter();
    const place: Place = {
      doc: i + 1,
      start: { line: lineOffset + 1, column: 1 },
      position: (offset) => {
        const { line, col } = lineCounter.linePos(offset);
        return { line: lineOffset + line, column: col };
      },
    };
    const document = (message: string, at = place) => report.problems.push(problemAt(at, '<document>', '', message));
    const bytes = Buffer.byteLength(chunk);
    if (bytes > maxDocumentBytes)
      return document(`is ${mib(bytes)} MiB; the API server refuses an object over ${mib(maxDocumentBytes).replace('.0', '')} MiB`);
    // YAML 1.1, like kubectl's YAML to JSON conversion: yes, no, on and off are booleans.
    for (const parsed of parseAllDocuments(chunk, { version: '1.1', lineCounter })) {
      if (parsed.errors.length) {
        const { line, column, message } = syntaxProblem(parsed.errors, chunk);
        document(`is not valid YAML: ${message}`, { ...place, start: { line: lineOffset + line, column } });
        continue;
      }
      const docPlace = { ...place, node: parsed.contents };
      let value: unknown;
      try {
        value = parsed.toJS({ maxAliasCount: maxAliases });
      } catch (err) {
        const message = (err as Error).message ?? '';
        document(
          /alias/i.test(message)
            ? `is not accepted: it uses more than ${maxAliases} YAML aliases`
            : `is not valid YAML: ${yamlReason(message)}`,
          docPlace,
        );
        continue;
      }
      if (value === null || value === undefined) continue;
      checkObject(value, docPlace, report);
    }
  });
  return report;
}
