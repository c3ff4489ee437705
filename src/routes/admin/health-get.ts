import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
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
const WorkerHealth = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the loop, made at its start: a restarted process is a new entry' }),
    kind: Type.Union([Type.Literal('lifecycle'), Type.Literal('webhook')]),
    mode: Type.Union([Type.Literal('separate'), Type.Literal('in-process')], { description: 'separate: npm run worker; in-process: inside an API process' }),
    host: Type.String(),
    pid: Type.Integer(),
    started_at: Type.String({ format: 'date-time' }),
    last_tick_at: Type.String({ format: 'date-time', description: 'the end of its last good pass (written at most every 5 s)' }),
    seconds_since_tick: Type.Integer({ minimum: 0 }),
    stale: Type.Boolean({ description: 'running and not ticked for 60 s: hung, or died without stopping' }),
    stopped_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when it stopped gracefully' }),
  },
  { additionalProperties: false },
);
const count = (description: string) => Type.Integer({ minimum: 0, description });
const SignerPayouts = Type.Object(
  {
    requested: count('waiting for the next batch'),
    awaiting_liquidity: count('requested, and the hot wallet cannot cover them now'),
    paused: count('requested, and the signer is paused for the chain'),
    awaiting_approval: count('above SIGNER_APPROVAL_ABOVE_<ASSET>: waiting for POST /admin/v1/payouts/{id}/approve'),
    signed: count('signed and stored, not yet broadcast'),
    broadcast: count('broadcast, not yet confirmed'),
  },
  { additionalProperties: false },
);
const HealthReport = Type.Object(
  {
    ready: Type.Boolean({ description: 'what GET /readyz answers: the database answers' }),
    database: Type.Object({ ok: Type.Boolean(), ping_ms: Type.Integer() }, { additionalProperties: false }),
    redis: Type.Union([Type.Object({ ok: Type.Boolean(), ping_ms: Type.Integer() }, { additionalProperties: false }), Type.Null()], {
      description: 'null without REDIS_URL; informational (rate limits fail open, security throttles count in-process)',
    }),
    workers_ok: Type.Boolean({ description: 'a lifecycle and a webhook loop each ticked within 60 s; informational' }),
    workers: Type.Array(WorkerHealth, { description: 'every worker loop that ticked in the last 24 hours, the most recent first' }),
    chains: Type.Record(Type.String(), ChainHealth, { description: 'one entry per CHAIN_<CHAIN>_RPC_URL' }),
    payouts: Type.Record(Type.String(), SignerPayouts, { description: "one entry per PAYOUT_SIGNER_CHAINS chain: the signer's unfinished payouts" }),
  },
  { additionalProperties: false },
);

/** GET /admin/v1/health: readiness with everything the public /readyz keeps to itself. */
export function registerAdminHealth(app: App, { readiness }: Services): void {
  app.get(
    '/admin/v1/health',
    {
      schema: {
        tags: ['admin'],
        summary: "Readiness in detail: database and Redis pings, the worker loops and their last tick, each chain node (errors, height, lag, host), the signer's payouts",
        security: adminSecurity,
        response: { 200: HealthReport, ...errorResponses(401, 429, 500) },
      },
    },
    () => readiness.report(),
  );
}
