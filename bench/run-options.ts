/**
 * What `npm run bench` was asked: its flags (bench/run.ts lists them) and the settings they make,
 * shared by the measures and the report. Read once, from the command line, when first imported.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './server.js';

export const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    soak: { type: 'string', default: '15' },
    only: { type: 'string' },
    streams: { type: 'string', default: '10000' },
    'stream-orders': { type: 'string', default: '1000' },
    moves: { type: 'string', default: '200' },
    payouts: { type: 'string', default: '50' },
    'scale-api': { type: 'string' },
    'scale-workers': { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
export const DURATION = Number(flags.duration);
export const ROUNDS = Math.max(1, Number(flags.rounds));
export const RUN_SECONDS = Math.max(1, Math.round(DURATION / ROUNDS));
export const CONNECTIONS = Number(flags.connections);
export const WARMUP = Number(flags.warmup);
export const SOAK = Number(flags.soak);
/** The service's PostgreSQL pool size (src/db/database.ts): pgbench gets as many clients. */
export const PG_CLIENTS = 10;
export const ONLY = flags.only === undefined ? undefined : new Set(flags.only.split(','));
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
export const PROFILE_DIR = path.join(RESULTS_DIR, 'profiles');

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
export const mb = (bytes: number) => bytes / 1024 / 1024;
export const wanted = (name: string) => ONLY === undefined || ONLY.has(name);
export const nowUs = () => Number(process.hrtime.bigint() / 1000n);
