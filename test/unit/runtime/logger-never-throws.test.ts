import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capturedLog } from '../../harness/captured-log.ts';

function cycle(): Record<string, unknown> {
  const a: Record<string, unknown> = { name: 'a' };
  a.self = a;
  return a;
}

describe('logging a value JSON cannot hold', () => {
  it('writes a Buffer in a field as its length, at any depth, never its bytes', () => {
    const { log, lines, output } = capturedLog();
    const bytes = Buffer.from('postgres://coder:hunter2@db/coder');
    log.info({ body: bytes, answer: { raw: bytes }, deeper: { a: { b: new Uint8Array(3) } } }, 'read the answer');
    assert.ok(!output().includes('hunter2'), output());
    const [line] = lines();
    assert.equal(line!.body, `[Buffer ${bytes.length} bytes]`);
    assert.deepEqual(line!.answer, { raw: `[Buffer ${bytes.length} bytes]` });
    assert.deepEqual(line!.deeper, { a: { b: '[Uint8Array 3 bytes]' } });
    assert.equal(line!.msg, 'read the answer');
  });

  it('writes an Error with a Buffer on it, keeping its message and stack', () => {
    const { log, lines } = capturedLog();
    const err = Object.assign(new Error('Coder answered 500'), { body: Buffer.from('raw answer') });
    log.error({ err }, 'the call failed');
    log.error(err);
    const [withField, alone] = lines();
    for (const line of [withField!, alone!]) {
      const logged = line.err as Record<string, unknown>;
      assert.equal(logged.type, 'Error');
      assert.equal(logged.message, 'Coder answered 500');
      assert.match(String(logged.stack), /^Error: Coder answered 500\n/);
      assert.equal(logged.body, '[Buffer 10 bytes]');
    }
    assert.equal(alone!.msg, 'Coder answered 500');
  });

  it('marks a cycle, a BigInt, a getter that throws and a toJSON that throws, and logs the rest', () => {
    const { log, lines } = capturedLog();
    const unreadable = {
      get boom(): string {
        throw new Error('getter failed');
      },
      ok: 1,
    };
    const badJson = { toJSON: () => assert.fail('toJSON failed') };
    log.info({ cycle: cycle(), big: 2n ** 64n, unreadable, badJson, kept: 'yes' }, 'odd values');
    const [line] = lines();
    assert.deepEqual(line!.cycle, { name: 'a', self: '[Circular]' });
    assert.equal(line!.big, '18446744073709551616');
    assert.deepEqual(line!.unreadable, { boom: '[Unreadable]', ok: 1 });
    assert.equal(line!.badJson, '[Unreadable]');
    assert.equal(line!.kept, 'yes');
    assert.equal(line!.msg, 'odd values');
  });

  it('survives a Proxy whose traps throw, as a field and as the whole object', () => {
    const { log, lines } = capturedLog();
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    log.info({ hostile }, 'proxy field');
    log.info(hostile, 'proxy object');
    const [field, whole] = lines();
    assert.equal(field!.hostile, '[Unreadable]');
    assert.equal(field!.msg, 'proxy field');
    assert.equal(whole!.msg, 'proxy object');
  });

  it('takes child bindings and format arguments that JSON cannot hold', () => {
    const { log, lines } = capturedLog();
    const child = log.child({ request: { body: Buffer.from('x'), loop: cycle() } });
    child.info('bound %j', { big: 1n, loop: cycle() });
    const [line] = lines();
    assert.deepEqual(line!.request, { body: '[Buffer 1 bytes]', loop: { name: 'a', self: '[Circular]' } });
    assert.equal(line!.msg, 'bound {"big":"1","loop":{"name":"a","self":"[Circular]"}}');
  });
});
