// An MCP `initialize` POST with a Host header of the test's choosing: fetch() sets Host itself, so this one
// is sent with node:http. For the MCP server's DNS-rebinding check.
import { request } from 'node:http';

/** The HTTP status of an initialize to `endpoint` (…/mcp) with the bearer `token` and `host` as its Host header. */
export function initializeStatusWithHost(endpoint: string, token: string, host: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      endpoint,
      {
        method: 'POST',
        headers: {
          Host: host,
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
