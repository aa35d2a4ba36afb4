// coderworkspaces/log?follow: which requests follow, and the open follows allowed per
// server and per user before a 429 with Retry-After 5.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FollowSlots } from '../../../../src/aggregated/server/filters/log-follow-limit.ts';
import { ApiStatusError } from '../../../../src/aggregated/status.ts';
import { isFollow } from '../../../../src/aggregated/storage/coderworkspace/workspace-log.ts';

const tooMany = (pattern: RegExp) => (err: unknown) =>
  err instanceof ApiStatusError && err.code === 429 && err.details?.retryAfterSeconds === 5 && pattern.test(err.message);

describe('log follow', () => {
  for (const [query, follows] of [
    ['follow', true],
    ['follow=true', true],
    ['follow=1', true],
    ['follow=false', false],
    ['', false],
    ['limitBytes=10', false],
  ] as const) {
    it(`${follows ? 'follows' : 'reads once'} for "?${query}"`, () => {
      assert.equal(isFollow(new URLSearchParams(query)), follows);
    });
  }

  it('allows 4 open follows per user, a 5th only once one is released', () => {
    const slots = new FollowSlots(64, 4);
    const releases = [1, 2, 3, 4].map(() => slots.take('alice'));
    assert.throws(() => slots.take('alice'), tooMany(/user "alice" already follows 4 logs/));
    slots.take('bob');
    releases[0]!();
    releases[0]!();
    slots.take('alice');
    assert.throws(() => slots.take('alice'), tooMany(/user "alice"/), 'a release counts once');
  });

  it('allows a set number of open follows on the server, whoever asks', () => {
    const slots = new FollowSlots(3, 4);
    const release = slots.take('a');
    slots.take('b');
    slots.take('c');
    assert.throws(() => slots.take('d'), tooMany(/this server already streams 3 followed logs/));
    release();
    slots.take('d');
  });
});
