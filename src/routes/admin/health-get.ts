import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { Readiness } from '../../services/readiness.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const ChainHealth = Type.Object(
  {
    ok: Type.Boolean({ description: 'the last pass succeeded after the last error' }),
    network: Type.Union([Type.String(), Type.Null()], { description: "the node's network as it reports it" }),
    height: Type.Union([Type.Integer(), Type.Null()]),
    last_ok_at: Timestamp,
    last_error: Type.Union([Type.String(), Type.Null()], { description: "the watcher's last error; may quote the node's reply" }),
    last_error_at: Timestamp,
    lag_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'seconds since the last good pass' }),
    node: Type.String({ description: 'host:port of CHAIN_<CHAIN>_RPC_URL (never its credentials)' }),
  },
  { additionalProperties: false },
);
const HealthReport = Type.Object(
  {
    ready: Type.Boolean({ description: 'what GET /readyz answers' }),
    database: Type.Object({ ok: Type.Boolean(), ping_ms: Type.Integer() }, { additionalProperties: false }),
    chains: Type.Record(Type.String(), ChainHealth, { description: 'one entry per CHAIN_<CHAIN>_RPC_URL' }),
  },
  { additionalProperties: false },
);

/** GET /admin/v1/health: readiness with everything the public /readyz keeps to itself. */
export function registerAdminHealth(app: App, { database, config, clock }: Services): void {
  const readiness = new Readiness(database, config.chainRpcUrls, clock);
  app.get(
    '/admin/v1/health',
    {
      schema: {
        tags: ['admin'],
        summary: 'Readiness in detail: database ping, each chain node (errors, height, lag, host)',
        security: adminSecurity,
        response: { 200: HealthReport, ...errorResponses(401, 429, 500) },
      },
    },
    () => readiness.report(),
  );
}
