import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { AdapterError } from '../../src/chains/adapters.js';
import { JsonRpcClient } from '../../src/chains/nodes/json-rpc-client.js';

/**
 * A node's reply is read up to a cap (issue 12): a node that answers without end, compromised or
 * misconfigured, is refused instead of filling the worker's memory.
 */
describe('JsonRpcClient: reply size cap', () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((request, response) => {
      const reply = JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(500) });
      if (request.url === '/declared') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
        response.end(reply);
        return;
      }
      if (request.url === '/endless') {
        // Chunked, no length: 2 MiB in 64 KiB pieces, as a misbehaving node might stream.
        response.writeHead(200, { 'content-type': 'application/json' });
        const piece = 'y'.repeat(64 * 1024);
        let sent = 0;
        const push = (): void => {
          while (sent < 32) {
            sent += 1;
            if (!response.write(piece)) return void response.once('drain', push);
          }
          response.end();
        };
        push();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(reply);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    url = `http://rpcuser:secret-password@127.0.0.1:${address.port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a reply within the cap is read', async () => {
    const client = new JsonRpcClient(`${url}/`, { maxReplyBytes: 1024 });
    assert.equal(await client.call<string>('getblockcount'), 'x'.repeat(500));
  });

  it('a declared length past the cap, or a body that grows past it, is refused without the credentials', async () => {
    for (const path of ['/declared', '/endless']) {
      const client = new JsonRpcClient(`${url}${path}`, { maxReplyBytes: 1024 * 1024 });
      await assert.rejects(client.call('getblock', ['x', 2]), (error: unknown) => {
        assert.ok(error instanceof AdapterError, String(error));
        assert.match(error.message, /exceeds the 1048576-byte cap/);
        assert.doesNotMatch(error.message, /secret-password/);
        return true;
      });
    }
  });
});
