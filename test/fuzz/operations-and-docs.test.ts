/**
 * Fuzzing of the operations endpoints, coin icons and the interactive docs, and the check that
 * the fuzzers cover every route the app registers (a new route without a fuzz spec fails here).
 */
import assert from 'node:assert/strict';
// Built on helpers/test-app.js (through fuzz-harness.ts), so `npm test` runs it on both engines.
import { after, describe, it } from 'node:test';
import { ApiError } from '../../src/errors.js';
import { FuzzContext, documentedRoutes, fuzzRuns, fuzzSeed, registeredRouteCount, routeSpecs } from './fuzz-harness.js';

const RUNS = fuzzRuns(50);
const ctx = await FuzzContext.create();

describe(`fuzz: operations, icons and docs (${RUNS} cases per route)`, () => {
  after(() => ctx.close());

  it('every registered route has a fuzz spec, and every spec a route', () => {
    const specs = routeSpecs(ctx);
    const names = specs.map((spec) => `${spec.method} ${spec.path}`);
    for (const spec of specs) {
      assert.ok(ctx.t.app.hasRoute({ method: spec.method, url: spec.path }), `no route ${spec.method} ${spec.path}`);
    }
    for (const route of documentedRoutes(ctx)) assert.ok(names.includes(route), `no fuzz spec for ${route}`);
    // Hidden routes (docs, icons) too: as many specs as the router has routes.
    assert.equal(new Set(names).size, registeredRouteCount(ctx));
  });

  for (const spec of routeSpecs(ctx).filter((route) => !route.path.startsWith('/api/') && !route.path.startsWith('/admin/'))) {
    it(`${spec.method} ${spec.path}`, async () => {
      await ctx.fuzzRoute(spec, RUNS, fuzzSeed());
    });
  }
});

describe('fuzz harness: the invariants bite', () => {
  it('a rejected request that wrote a row, an undocumented status and a bare error all fail the check', async () => {
    const broken = await FuzzContext.create((app) => {
      app.post('/test/sneaky', { schema: { response: { 400: { $ref: 'Error#' } } } }, async () => {
        await app.runtime.apiKeys.issue((await broken.t.db.handle.db.selectFrom('partners').select('id').executeTakeFirstOrThrow()).id);
        throw new ApiError('bad_request', 'rejected, but a key was written');
      });
      app.get('/test/teapot', async (_request, reply) => reply.code(418).send({ detail: 'x', code: 'bad_request' }));
      app.get('/test/bare', { schema: { response: { 400: { $ref: 'Error#' } } } }, async (_request, reply) => reply.code(400).type('text/plain').send('no'));
    });
    try {
      const request = (method: 'GET' | 'POST', url: string) => ({ method, url, headers: {}, remoteAddress: '10.0.0.1' });
      await assert.rejects(broken.check(request('POST', '/test/sneaky')), /changed stored state \(api_keys\)/);
      await assert.rejects(broken.check(request('GET', '/test/teapot')), /status 418 is not documented/);
      await assert.rejects(broken.check(request('GET', '/test/bare')), /non-JSON error/);
    } finally {
      // /test/bare breaks its documented schema on purpose: the test app's response check says so too.
      await assert.rejects(broken.close(), /GET \/test\/bare → 400 text\/plain: content type text\/plain is not documented/);
    }
  });
});
