// The checks of a written object before its storage sees it: its kind and apiVersion, and its unknown
// fields as the caller's fieldValidation says (400 under Strict, Warning headers under Warn).
import type { ServerResponse } from 'node:http';
import { badRequest, groupVersion } from '../../status.ts';
import type { Storage, WrittenObject } from '../../storage/storage.ts';
import { fieldValidation, validateFields } from '../field-validation.ts';

export function checkBody(res: ServerResponse, body: WrittenObject, storage: Storage, q: URLSearchParams): void {
  if (body.kind && body.kind !== storage.names.kind) throw badRequest(`the body is a ${body.kind}, not a ${storage.names.kind}`);
  if (body.apiVersion && body.apiVersion !== groupVersion)
    throw badRequest(`the body's apiVersion is ${body.apiVersion}, not ${groupVersion}`);
  const warnings = validateFields(storage.names.kind, body, fieldValidation(q.get('fieldValidation')));
  if (warnings.length)
    res.setHeader(
      'Warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
}
