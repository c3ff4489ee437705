import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

/** A local stand-in for a market-data API: 127.0.0.1, ephemeral port, records request URLs. */
export interface FakeFeed {
  /** e.g. http://127.0.0.1:43121 */
  baseUrl: string;
  /** Path and query of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

export type FakeHandler = (req: IncomingMessage, res: ServerResponse) => void;

export async function startFakeFeed(handler: FakeHandler): Promise<FakeFeed> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // A "never answers" handler leaves sockets open; drop them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Replies with a fixed status and body, as JSON. */
export function reply(status: number, body: string): FakeHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
}

/** Never writes a response: for timeout tests. */
export const neverAnswer: FakeHandler = () => undefined;

/** A recorded response body from test/pricing/fixtures. */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}
