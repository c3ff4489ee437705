/**
 * The HTTP ceiling: plain `node:http` answering every request with fixed bytes, no routing,
 * no hooks, no validation. `node --import tsx bench/raw-server.ts <body-file>` prints its port.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const bodyFile = process.argv[2];
if (bodyFile === undefined) throw new Error('usage: raw-server.ts <body-file>');
const body = readFileSync(bodyFile);
const length = String(body.length);

const server = createServer((request, response) => {
  // Drain any request body first, as a real handler must.
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
    response.end(body);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
