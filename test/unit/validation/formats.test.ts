// Formats as the API server's Go strfmt checks them, and RE2 patterns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDateTime, isUuid, kubeFormats } from '../../../src/validation/formats.ts';
import { re2 } from '../../../src/validation/re2.ts';

describe('formats', () => {
  it('accepts RFC 3339 date-times with a fraction, Z or an offset, in either case', () => {
    for (const s of ['2024-02-29T23:59:59Z', '2024-01-01t00:00:00.123456789z', '2024-01-01T10:00:00+02:00'])
      assert.equal(isDateTime(s), true, s);
  });

  it('rejects impossible dates and times, and missing zones', () => {
    for (const s of ['2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:00:00', '2024-01-01']) {
      assert.equal(isDateTime(s), false, s);
    }
  });

  it('accepts UUIDs in either case and with or without dashes', () => {
    assert.equal(isUuid('8a0f5c2e-7b1d-4c3a-9e6f-0d2b4a6c8e1f'), true);
    assert.equal(isUuid('8A0F5C2E7B1D4C3A9E6F0D2B4A6C8E1F'), true);
    assert.equal(isUuid('8a0f5c2e-7b1d-4c3a-9e6f'), false);
  });

  it('bounds int32 and accepts any integer as int64', () => {
    assert.equal(kubeFormats.int32.validate(2 ** 31 - 1), true);
    assert.equal(kubeFormats.int32.validate(2 ** 31), false);
    assert.equal(kubeFormats.int64.validate(2 ** 40), true);
    assert.equal(kubeFormats.int64.validate(1.5), false);
  });
});

describe('RE2 patterns', () => {
  it('search unanchored, and treat \\s as ASCII white space only', () => {
    assert.equal(re2('b').test('abc'), true);
    assert.equal(re2('^\\S+$').test('a\u00a0b'), true);
    assert.equal(re2('^.+$').test('a\rb'), true);
  });
});
