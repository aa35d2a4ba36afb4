import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { refuseImpersonation } from '../../../../src/aggregated/server/filters/impersonation.ts';
import type { ApiStatusError } from '../../../../src/aggregated/status.ts';

const withHeaders = (headers: Record<string, string>) =>
  ({ headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])) }) as unknown as IncomingMessage;
const refusal = (headers: Record<string, string>) => {
  try {
    refuseImpersonation(withHeaders(headers));
    return undefined;
  } catch (err) {
    return err as ApiStatusError;
  }
};

describe('impersonation on a direct request', () => {
  it('refuses every header kube-apiserver impersonates with, 403 naming it and kube-apiserver as the way', () => {
    for (const header of [
      'Impersonate-User',
      'Impersonate-Group',
      'Impersonate-Uid',
      'Impersonate-Extra-Scopes',
      'impersonate-extra-acme.io%2fteam',
    ]) {
      const refused = refusal({ [header]: 'alice' });
      assert.equal(refused?.code, 403, header);
      assert.equal(refused.reason, 'Forbidden');
      assert.match(
        refused.message,
        /^impersonation \(Impersonate-(User|Group|Uid|Extra-\S+)\) is not served .* send the request through kube-apiserver/,
      );
    }
    assert.match(refusal({ 'impersonate-user': '' })!.message, /\(Impersonate-User\)/, 'present, even empty');
  });

  it("lets a request without them through, the front proxy's X-Remote-* headers included", () => {
    assert.equal(
      refusal({ 'X-Remote-User': 'alice', 'X-Remote-Group': 'devs', 'X-Remote-Extra-Scopes': 'read', Impersonated: 'no' }),
      undefined,
    );
  });
});
