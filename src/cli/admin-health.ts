import { asRecord, printResponse, type ApiRecord, type Command } from './admin-command.js';
import { cell, table } from './admin-table.js';

const yesNo = (ok: unknown) => (ok === true ? 'ok' : 'FAILING');

/** GET /admin/v1/health as a few tables: what to look at first when something seems wrong. */
function showHealth(body: unknown): string {
  const report = asRecord(body);
  const database = asRecord(report.database);
  const redis = report.redis === null ? undefined : asRecord(report.redis);
  const lines = [
    `ready: ${report.ready === true ? 'yes' : 'NO'}`,
    `database: ${yesNo(database.ok)} (${cell(database.ping_ms)} ms)`,
    `redis: ${redis === undefined ? 'not configured (REDIS_URL unset)' : `${yesNo(redis.ok)} (${cell(redis.ping_ms)} ms)`}`,
    `workers: ${report.workers_ok === true ? 'ok' : 'a lifecycle or webhook loop has not ticked within 60 s'}`,
  ];
  const workers = Array.isArray(report.workers) ? report.workers.map(asRecord) : [];
  if (workers.length > 0) {
    lines.push(
      '',
      table(
        ['WORKER', 'MODE', 'HOST', 'PID', 'LAST_TICK_AT', 'SECONDS', 'STATE'],
        workers.map((w) => [
          ...[w.kind, w.mode, w.host, w.pid, w.last_tick_at, w.seconds_since_tick].map(cell),
          w.stopped_at !== null ? 'stopped' : w.stale === true ? 'STALE' : 'running',
        ]),
      ),
    );
  }
  const chains = Object.entries(asRecord(report.chains));
  lines.push('', chains.length === 0 ? 'chains: none watched (no CHAIN_<CHAIN>_RPC_URL)' : table(
    ['CHAIN', 'STATE', 'NETWORK', 'HEIGHT', 'LAG_S', 'LAST_OK_AT', 'LAST_ERROR'],
    chains.map(([chain, value]) => {
      const c: ApiRecord = asRecord(value);
      return [chain, yesNo(c.ok), ...[c.network, c.height, c.lag_seconds, c.last_ok_at, c.last_error].map(cell)];
    }),
  ));
  const payouts = Object.entries(asRecord(report.payouts));
  if (payouts.length > 0) {
    lines.push('', table(
      ['SIGNER_CHAIN', 'REQUESTED', 'NO_LIQUIDITY', 'PAUSED', 'AWAITING_APPROVAL', 'SIGNED', 'BROADCAST'],
      payouts.map(([chain, value]) => {
        const p = asRecord(value);
        return [chain, ...[p.requested, p.awaiting_liquidity, p.paused, p.awaiting_approval, p.signed, p.broadcast].map(cell)];
      }),
    ));
  }
  return lines.join('\n');
}

export const healthCommands: readonly Command[] = [
  {
    words: ['health'],
    args: [],
    flags: [],
    async run(context) {
      printResponse(context, await context.api.send('GET', '/admin/v1/health'), showHealth);
    },
  },
];
