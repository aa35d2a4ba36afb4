import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPath, parseBaseURL, requestURL } from '../../../src/coder/request-url.ts';

describe('the URL of a Coder call', () => {
  const base = parseBaseURL('http://coder.coder.svc.cluster.local:80/');

  it('joins the base URL and the path, keeping a path prefix of the base', () => {
    assert.equal(requestURL(base, '/api/v2/licenses').href, 'http://coder.coder.svc.cluster.local/api/v2/licenses');
    const prefixed = parseBaseURL('https://coder.example.com:8443/coder/');
    assert.equal(requestURL(prefixed, '/api/v2/buildinfo').href, 'https://coder.example.com:8443/coder/api/v2/buildinfo');
  });

  it('never lets a path change the host', () => {
    assert.equal(requestURL(base, '//evil.example.com/x').host, 'coder.coder.svc.cluster.local');
    assert.throws(() => requestURL(base, 'http://evil.example.com/x'), /must start with "\/"/);
  });

  it('fills path parameters, encoded, and refuses a missing one', () => {
    assert.equal(
      expandPath('/api/v2/organizations/{organization}/provisionerkeys/{provisionerKeyName}', {
        organization: 'default',
        provisionerKeyName: 'a/b c',
      }),
      '/api/v2/organizations/default/provisionerkeys/a%2Fb%20c',
    );
    assert.equal(expandPath('/api/v2/licenses/{id}', { id: 7 }), '/api/v2/licenses/7');
    assert.throws(() => expandPath('/api/v2/licenses/{id}', {}), /needs a value for parameter "id"/);
    assert.throws(() => expandPath('/api/v2/users/{user}', { user: '' }), /parameter "user"/);
  });

  it('appends query values, repeating arrays and skipping undefined', () => {
    const url = requestURL(base, '/api/v2/users', { q: 'status:active', limit: 10, none: undefined, ids: ['a', 'b'], all: true });
    assert.equal(url.search, '?q=status%3Aactive&limit=10&ids=a&ids=b&all=true');
  });

  it('refuses a base URL that is not http(s) or that carries credentials, without echoing it', () => {
    assert.throws(() => parseBaseURL('ftp://coder'), /must use http or https/);
    assert.throws(() => parseBaseURL('not a url'), /not a valid absolute URL/);
    assert.throws(
      () => parseBaseURL('http://admin:hunter2@coder'),
      (err: Error) => err.message === 'the Coder URL must not contain credentials' && !err.message.includes('hunter2'),
    );
  });
});
