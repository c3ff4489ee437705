/**
 * The framework floor: a bare Fastify 5 (the project's own dependency) with `logger: false`,
 * no plugins, no hooks, and one GET route answering fixed bytes. What any Fastify app pays
 * before its own code runs. `node --import tsx bench/bare-fastify-server.ts <body-file> <route>`
 * prints its port.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [bodyFile, route] = process.argv.slice(2);
if (bodyFile === undefined || route === undefined) throw new Error('usage: bare-fastify-server.ts <body-file> <route>');
const body = readFileSync(bodyFile);

// keepAliveTimeout is Fastify's default, 72 s, the raw server's too.
const app = Fastify({ logger: false });
app.get(route, (_request, reply) => {
  reply.type('application/json; charset=utf-8').send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${new URL(address).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
