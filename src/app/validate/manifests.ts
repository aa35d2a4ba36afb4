// Manifests checked offline: every document of a multi-document YAML (or JSON) file, and every item of
// a v1 List, validated with the generated validator of its kind. Objects of other API groups are skipped.
import { parseAllDocuments } from 'yaml';
import { kindValidators } from '../../../generated/validators/index.ts';
import type { ValidationError } from '../../validation/error.ts';
import { isObject } from '../../validation/structural.ts';
import { runValidation } from '../../validation/validate.ts';
import { validatorFor } from '../../validation/validator-lookup.ts';

/** The API group whose kinds the validators know; an unknown kind of it is an error, not a skip. */
export const ourGroup = 'coder.com';

export interface ManifestProblem {
  /** 1-based index of the document in its file. */
  doc: number;
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

function checkObject(value: unknown, doc: number, report: ManifestReport): void {
  if (!isObject(value)) {
    report.problems.push({
      doc,
      object: '<document>',
      path: '',
      message: 'is not an object (a mapping with apiVersion, kind and metadata)',
    });
    return;
  }
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  if (apiVersion === 'v1' && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    for (const item of value.items) checkObject(item, doc, report);
    return;
  }
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const validator = validatorFor(kindValidators, apiVersion, String(value.kind));
  if (!validator) {
    if (group === ourGroup) {
      report.problems.push({
        doc,
        object: objectName(value),
        path: '',
        message: `unknown kind ${String(value.kind)} in ${apiVersion}; this version of coder-k8s knows ${knownKinds(group)}`,
      });
    } else report.skipped++;
    return;
  }
  report.checked++;
  const errors: ValidationError[] = runValidation(validator, value);
  for (const e of errors) report.problems.push({ doc, object: objectName(value), path: e.path, message: e.message });
}

/** Checks every document of a YAML or JSON text. */
export function checkManifests(text: string): ManifestReport {
  const report: ManifestReport = { problems: [], checked: 0, skipped: 0 };
  // YAML 1.1, like kubectl's YAML to JSON conversion: yes, no, on and off are booleans.
  parseAllDocuments(text, { version: '1.1' }).forEach((document, i) => {
    const doc = i + 1;
    if (document.errors.length) {
      for (const e of document.errors)
        report.problems.push({ doc, object: '<document>', path: '', message: `is not valid YAML: ${e.message.split('\n')[0]}` });
      return;
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return;
    checkObject(value, doc, report);
  });
  return report;
}
