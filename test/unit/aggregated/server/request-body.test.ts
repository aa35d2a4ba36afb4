import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxBodyDepth, parseBody, parseObjectBody } from '../../../../src/aggregated/server/request-body.ts';
import type { ApiStatusError } from '../../../../src/aggregated/status.ts';

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const refusal = (parse: () => unknown) => {
  try {
    parse();
    return 'accepted';
  } catch (err) {
    return `${(err as ApiStatusError).code} ${(err as Error).message}`;
  }
};

describe('request bodies', () => {
  it(`accepts objects ${maxBodyDepth} levels deep and refuses deeper ones with 400, JSON or YAML`, () => {
    assert.equal(
      refusal(() => parseBody(nested(maxBodyDepth), false, 'the body')),
      'accepted',
    );
    assert.equal(
      refusal(() => parseBody(nested(maxBodyDepth + 1), false, 'the body')),
      `400 the request body is nested more than ${maxBodyDepth} levels deep`,
    );
    // Deep enough to overflow the stack of every recursive step after parsing.
    assert.match(
      refusal(() => parseObjectBody(nested(200_000))),
      /^400 the request body is nested more than/,
    );
    assert.match(
      refusal(() => parseBody('['.repeat(20_000) + ']'.repeat(20_000), false, 'the patch body')),
      /^400 /,
    );
    assert.match(
      refusal(() => parseBody('a: ' + '['.repeat(20_000) + ']'.repeat(20_000), true, 'the patch body')),
      /^400 /,
    );
  });

  it('refuses text that is not one object, naming what is wrong', () => {
    assert.equal(
      refusal(() => parseObjectBody('[1]')),
      '400 the request body is not a JSON object',
    );
    assert.match(
      refusal(() => parseObjectBody('{"a":')),
      /^400 the request body is not valid JSON: /,
    );
    assert.deepEqual(parseObjectBody('metadata: {name: x}', 'application/yaml'), { metadata: { name: 'x' } });
  });
});
