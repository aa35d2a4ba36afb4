import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '../../harness/wait.ts';

describe('eventually', () => {
  it('returns the first truthy value', async () => {
    let calls = 0;
    const value = await eventually('the third call', async () => (++calls >= 3 ? calls : undefined), { intervalMs: 1 });
    assert.equal(value, 3);
  });

  it('names what it waited for and what it last saw when the deadline passes', async () => {
    await assert.rejects(
      eventually(
        'the widget to be ready',
        async () => {
          throw new Error('widget is warming up');
        },
        { timeoutMs: 50, intervalMs: 5 },
      ),
      /timed out after 50 ms waiting for the widget to be ready; last saw: 'error: widget is warming up'/,
    );
  });
});
