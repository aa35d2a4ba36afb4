import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coderApiDocument } from '../../harness/coder-api-double/document.ts';

describe('the Coder API document as the double reads it', () => {
  const doc = coderApiDocument();
  const paths = doc.raw.paths as Record<string, Record<string, { operationId?: string }>>;
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    ['get', 'put', 'post', 'patch', 'delete'].filter((m) => item[m]).map((m) => ({ path, method: m.toUpperCase() })),
  );

  it('compiles every body, parameter and response schema of every operation under strict ajv', () => {
    assert.ok(operations.length > 50);
    for (const { path, method } of operations) {
      const sample = path.replace(/\{[^}]+\}/g, 'x');
      const match = doc.match(method, sample);
      assert.ok(match, `${method} ${path} does not route`);
      const op = match.operation;
      for (const p of op.parameters) doc.validator(`${op.operationId}:${p.in}:${p.name}`, p.schema);
      for (const [type, schema] of Object.entries(op.requestBody?.mediaTypes ?? {})) {
        if (schema) doc.validator(`${op.operationId}:body:${type}`, schema);
      }
      for (const [status, spec] of Object.entries(op.responses)) {
        if (spec.schema) doc.validator(`${op.operationId}:response:${status}`, spec.schema);
      }
    }
  });

  it('routes a literal segment before a templated one', () => {
    assert.equal(doc.match('GET', '/api/v2/users/me')?.operation.operationId, 'getCurrentUser');
    assert.equal(doc.match('GET', '/api/v2/users/alice')?.operation.operationId, 'getUser');
    assert.deepEqual(doc.match('GET', '/api/v2/users/alice')?.pathParams, { user: 'alice' });
    assert.equal(doc.match('GET', '/api/v2/organizations/coder/templates')?.operation.operationId, 'listOrganizationTemplates');
    assert.equal(doc.match('GET', '/api/v2/users/bob/roles')?.operation.operationId, 'getUserRoles');
  });

  it('finds no operation for an unknown path, a wrong method or a trailing slash', () => {
    assert.equal(doc.match('GET', '/api/v2/nope'), undefined);
    assert.equal(doc.match('PUT', '/api/v2/licenses'), undefined);
    assert.equal(doc.match('GET', '/api/v2/licenses/'), undefined);
  });

  it('knows which operations need the session token', () => {
    assert.equal(doc.match('GET', '/api/v2/buildinfo')?.operation.secured, false);
    assert.equal(doc.match('GET', '/api/v2/licenses')?.operation.secured, true);
  });
});
