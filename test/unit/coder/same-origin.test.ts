import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { effectivePort, originOf, sameOrigin } from '../../../src/coder/same-origin.ts';

describe('sameOrigin', () => {
  const cases: Array<[string, string, string, boolean]> = [
    ['the same URL', 'http://coder.coder.svc.cluster.local:80/api/v2', 'http://coder.coder.svc.cluster.local:80/api/v2', true],
    ['another path and query on the same origin', 'http://coder:8080/api/v2/licenses', 'http://coder:8080/x?y=1#z', true],
    ['http with and without :80', 'http://coder/api', 'http://coder:80/other', true],
    ['https with and without :443', 'https://coder.example.com', 'https://coder.example.com:443/', true],
    ['ws with and without :80', 'ws://coder/logs', 'ws://coder:80/logs', true],
    ['wss with and without :443', 'wss://coder/logs', 'wss://coder:443/logs', true],
    ['host names in other case', 'http://Coder.Example.COM', 'http://coder.example.com', true],
    ['credentials on one side only', 'http://coder', 'http://user:pw@coder', true],
    ['IPv6 literals written differently', 'http://[::1]:8080', 'http://[0:0:0:0:0:0:0:1]:8080', true],
    ['http and https on one host', 'http://coder', 'https://coder', false],
    ['http on 443 and https on 443', 'http://coder:443', 'https://coder:443', false],
    ['http and ws', 'http://coder', 'ws://coder', false],
    ['another port', 'http://coder:80', 'http://coder:8080', false],
    ['an explicit port that is not the default', 'http://coder', 'http://coder:443', false],
    ['another host', 'http://coder.coder.svc.cluster.local', 'http://coder.example.com', false],
    ['a subdomain', 'http://example.com', 'http://coder.example.com', false],
    ['a trailing dot', 'http://coder.example.com', 'http://coder.example.com.', false],
    ['loopback by name and by address', 'http://localhost:3000', 'http://127.0.0.1:3000', false],
  ];
  for (const [what, a, b, expected] of cases) {
    it(`${expected ? 'accepts' : 'refuses'} ${what}`, () => {
      assert.equal(sameOrigin(new URL(a), new URL(b)), expected);
      assert.equal(sameOrigin(new URL(b), new URL(a)), expected, 'the rule is symmetric');
    });
  }
});

describe('effectivePort and originOf', () => {
  it('fills in the default port of known schemes only', () => {
    assert.equal(effectivePort(new URL('https://coder')), '443');
    assert.equal(effectivePort(new URL('http://coder:8080')), '8080');
    assert.equal(effectivePort(new URL('gopher://coder')), '');
  });

  it('prints an origin without credentials, path or query', () => {
    assert.equal(originOf(new URL('https://user:pw@coder.example.com:8443/api?t=1')), 'https://coder.example.com:8443');
    assert.equal(originOf(new URL('http://coder:80/x')), 'http://coder');
  });
});
