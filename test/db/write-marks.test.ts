import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installWriteMarks } from '../../src/plugins/write-marks.js';
import type { LagTolerantReads } from '../../src/services/replica-reads.js';

/**
 * The write marks hook is added per route, to the routes with a writing method only (issue 33: no
 * async hook on the GETs). What it records must be what the app-wide hook recorded: a partner's
 * (or a cabinet session's) answered write, on any route, a child plugin's included, and nothing else.
 */
function recordingReads(): LagTolerantReads & { marks: string[] } {
  const marks: string[] = [];
  return {
    marks,
    read: (_partnerId, query) => query(undefined as never),
    wrote: async (partnerId) => void marks.push(partnerId),
    connected: async () => undefined,
    close: async () => undefined,
  };
}

async function appWith(reads: LagTolerantReads): Promise<FastifyInstance> {
  const app = Fastify();
  installWriteMarks(app, reads);
  app.decorateRequest('partner', undefined);
  app.addHook('onRequest', (request, _reply, done) => {
    const who = request.headers['x-partner'];
    if (typeof who === 'string') request.partner = { id: who } as NonNullable<typeof request.partner>;
    done();
  });
  const answer = (status: number) => async (_request: unknown, reply: { code(status: number): { send(body: unknown): unknown } }) => reply.code(status).send({ ok: true });
  app.post('/write', answer(201));
  app.post('/refused', answer(422));
  app.get('/read', answer(200));
  app.route({ method: ['GET', 'DELETE'], url: '/both', handler: answer(200) });
  await app.register(async (child) => {
    child.put('/child/write', answer(200));
  });
  await app.ready();
  return app;
}

describe('write marks', () => {
  it('records an answered write of a partner on every writing route, and no read, refusal or anonymous write', async () => {
    const reads = recordingReads();
    const app = await appWith(reads);
    const as = { 'x-partner': 'p1' };
    for (const [method, url, status] of [
      ['POST', '/write', 201],
      ['POST', '/refused', 422],
      ['GET', '/read', 200],
      ['HEAD', '/read', 200],
      ['GET', '/both', 200],
      ['DELETE', '/both', 200],
      ['PUT', '/child/write', 200],
      ['POST', '/nowhere', 404],
    ] as const) {
      const response = await app.inject({ method, url, headers: as });
      assert.equal(response.statusCode, status, `${method} ${url}`);
    }
    await app.inject({ method: 'POST', url: '/write' });
    // POST /write, DELETE /both, PUT /child/write: each once, in order; the anonymous POST none.
    assert.deepEqual(reads.marks, ['p1', 'p1', 'p1']);
    await app.close();
  });
});
