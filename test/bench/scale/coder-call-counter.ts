// Stands where every control plane's Coder would be (--test-only-coder-url) and counts the calls the
// operator makes, answering each with 503: the bench measures how often the operator calls, not Coder.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CoderCallCounter {
  url: string;
  calls(): number;
  close(): Promise<void>;
}

export async function startCoderCallCounter(): Promise<CoderCallCounter> {
  let calls = 0;
  const server = createServer((req, res) => {
    calls++;
    req.resume();
    res.writeHead(503, { 'Content-Type': 'application/json' });
    res.end('{"message":"bench: no Coder here"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
