// The --app=mcp-http flags: required token file and caller, loopback-only bind, refused with other modes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOperatorArgs, UsageError, type OperatorOptions } from '../../../src/app/options.ts';

const mcp = (...args: string[]) => (parseOperatorArgs(['--app=mcp-http', ...args]) as OperatorOptions).mcp;

describe('--app=mcp-http flags', () => {
  it('defaults to 127.0.0.1:8090 and keeps the caller and its groups', () => {
    assert.deepEqual(mcp('--mcp-token-file=/t', '--mcp-as=alice', '--mcp-as-group=dev', '--mcp-as-group=dev'), {
      bindAddress: '127.0.0.1:8090',
      tokenFile: '/t',
      caller: { user: 'alice', groups: ['dev'] },
    });
    assert.equal(mcp('--mcp-token-file=/t', '--mcp-as=alice', '--mcp-bind-address=[::1]:9000')?.bindAddress, '[::1]:9000');
  });

  it('requires the token file and the caller', () => {
    assert.throws(
      () => mcp('--mcp-as=alice'),
      new UsageError('--mcp-token-file is required for --app=mcp-http: a file holding a token of at least 32 bytes'),
    );
    assert.throws(() => mcp('--mcp-token-file=/t'), /--mcp-as is required for --app=mcp-http/);
    assert.throws(() => mcp('--mcp-token-file=/t', '--mcp-as=alice', '--mcp-as-group='), /--mcp-as-group is empty/);
  });

  it('listens on a loopback address only', () => {
    for (const address of [':8090', '0.0.0.0:8090', '10.0.0.1:8090', 'localhost:8090', '0']) {
      assert.throws(() => mcp('--mcp-token-file=/t', '--mcp-as=alice', `--mcp-bind-address=${address}`), /loopback address only/, address);
    }
  });

  it('refuses the MCP flags with a mode that does not run the MCP server', () => {
    assert.throws(
      () => parseOperatorArgs(['--app=controller', '--mcp-token-file=/t']),
      new UsageError('--mcp-token-file is only used with --app=mcp-http; --app=controller does not run the MCP server'),
    );
    assert.equal((parseOperatorArgs(['--app=controller']) as OperatorOptions).mcp, undefined);
  });
});
