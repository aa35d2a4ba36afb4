// metadata checks the API server makes on every custom resource (ObjectMeta validation): name or
// generateName, label and annotation keys and values, finalizer names; worded as the API server words them.
import { invalid, required, tooLong, undecodable, type ValidationError } from './error.ts';
import { isObject } from './structural.ts';

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const qualifiedName = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const qualifiedNameMessage =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an " +
  "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " +
  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used " +
  "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const totalAnnotationSizeLimit = 256 * 1024;

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/** NameIsDNSSubdomain; a generateName prefix may end in a dash. */
function nameMessages(name: string, prefix: boolean): string[] {
  const value = prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
  const out: string[] = [];
  if (value.length > 253) out.push('must be no more than 253 characters');
  if (!dns1123Subdomain.test(value)) out.push(dns1123SubdomainMessage);
  return out;
}

/** IsQualifiedName: an optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
function qualifiedNameMessages(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a valid label key ${qualifiedNameMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const out: string[] = [];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else {
      if (byteLength(prefix) > 253) out.push('prefix part must be no more than 253 bytes');
      if (!dns1123Subdomain.test(prefix)) out.push(`prefix part ${dns1123SubdomainMessage}`);
    }
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else if (byteLength(name) > 63) out.push('name part must be no more than 63 bytes');
  if (!qualifiedName.test(name)) out.push(`name part ${qualifiedNameMessage}`);
  return out;
}

function labelValueMessages(value: string): string[] {
  const out: string[] = [];
  if (byteLength(value) > 63) out.push('must be no more than 63 bytes');
  if (!labelValue.test(value)) out.push(labelValueMessage);
  return out;
}

const jsonType = (v: unknown) =>
  Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'object' ? 'object' : typeof v;

/** A value that Go's encoding/json cannot decode into ObjectMeta; the API server answers 400 with it. */
function decodeError(field: string, value: unknown, goType: string): ValidationError {
  const target = field ? `Go struct field ObjectMeta.${field}` : 'Go value';
  return undecodable(
    field ? `metadata.${field}` : 'metadata',
    `json: cannot unmarshal ${jsonType(value)} into ${target} of type ${goType}`,
  );
}

const present = (v: unknown) => v !== undefined && v !== null;

/**
 * The first value of metadata that does not decode into ObjectMeta (a label that is a number, ...): the
 * API server stops at it. Only the fields people write are checked.
 */
export function metadataDecodingErrors(metadata: unknown): ValidationError[] {
  if (!present(metadata)) return [];
  if (!isObject(metadata)) return [decodeError('', metadata, 'v1.ObjectMeta')];
  for (const field of ['name', 'generateName', 'namespace']) {
    if (present(metadata[field]) && typeof metadata[field] !== 'string') return [decodeError(field, metadata[field], 'string')];
  }
  for (const field of ['labels', 'annotations']) {
    const map = metadata[field];
    if (!present(map)) continue;
    if (!isObject(map)) return [decodeError(field, map, 'map[string]string')];
    const bad = Object.values(map).find((v) => present(v) && typeof v !== 'string');
    if (bad !== undefined) return [decodeError(field, bad, 'string')];
  }
  const finalizers = metadata.finalizers;
  if (present(finalizers)) {
    if (!Array.isArray(finalizers)) return [decodeError('finalizers', finalizers, '[]string')];
    const bad = finalizers.find((f) => present(f) && typeof f !== 'string');
    if (bad !== undefined) return [decodeError('finalizers', bad, 'string')];
  }
  return [];
}

const stringsOf = (map: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(isObject(map) ? map : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));

/**
 * Validates metadata that decodes (see metadataDecodingErrors). `generated` is true when the name was
 * made up from generateName for offline checks (the API server generates it before validating), so it
 * is not checked itself.
 */
export function validateObjectMeta(metadata: unknown, generated = false): ValidationError[] {
  const errors: ValidationError[] = [];
  const meta = isObject(metadata) ? metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName) for (const m of nameMessages(generateName, true)) errors.push(invalid('metadata.generateName', generateName, m));
  if (!name) errors.push(required('metadata.name', 'name or generateName is required'));
  else if (!generated) for (const m of nameMessages(name, false)) errors.push(invalid('metadata.name', name, m));

  for (const [k, v] of Object.entries(stringsOf(meta.labels))) {
    for (const m of qualifiedNameMessages(k)) errors.push(invalid('metadata.labels', k, m));
    for (const m of labelValueMessages(v)) errors.push(invalid('metadata.labels', v, m));
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(stringsOf(meta.annotations))) {
    for (const m of qualifiedNameMessages(k.toLowerCase())) errors.push(invalid('metadata.annotations', k, m));
    annotationBytes += byteLength(k) + byteLength(v);
  }
  if (annotationBytes > totalAnnotationSizeLimit) errors.push(tooLong('metadata.annotations', totalAnnotationSizeLimit));
  if (Array.isArray(meta.finalizers)) {
    for (const f of meta.finalizers) {
      if (typeof f === 'string') for (const m of qualifiedNameMessages(f)) errors.push(invalid('metadata.finalizers', f, m));
    }
  }
  return errors;
}
