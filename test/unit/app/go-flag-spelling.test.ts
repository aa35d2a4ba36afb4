// Go's single-dash flags read as the double-dash ones; an unknown flag refused by the name it was written with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/app/errors.ts';
import { withDoubleDash } from '../../../src/app/go-flag-spelling.ts';

const flags = { app: { type: 'string' }, kubeconfig: { type: 'string' }, version: { type: 'boolean' }, help: { type: 'boolean' } } as const;

describe('withDoubleDash', () => {
  it('spells a known long flag with two dashes, with or without =value', () => {
    assert.deepEqual(withDoubleDash(['-app=controller', '-version', '--kubeconfig=/k', '-h'], flags), [
      '--app=controller',
      '--version',
      '--kubeconfig=/k',
      '-h',
    ]);
  });

  it('leaves the word a flag takes as its value alone, and everything after --', () => {
    assert.deepEqual(withDoubleDash(['-app', '-version', '--kubeconfig', '-app', '-version'], flags), [
      '--app',
      '-version',
      '--kubeconfig',
      '-app',
      '--version',
    ]);
    assert.deepEqual(withDoubleDash(['-app=all', '--', '-app=x', '-nope'], flags), ['--app=all', '--', '-app=x', '-nope']);
  });

  it('refuses an unknown single-dash flag by the name it was written with, never its value', () => {
    assert.throws(
      () => withDoubleDash(['-coder-session-tokn=secret-value'], flags),
      (err) =>
        err instanceof UsageError &&
        err.message === 'unknown flag -coder-session-tokn; --help lists the flags (each may be written -name or --name)',
    );
  });
});
