/**
 * `npm run bench:cabinet`: how fast the partner cabinet's pages are on the embedded default
 * with 10,000 orders (issue 16: "a page is usable in under 1 s on the embedded default with
 * 10,000 orders"). See bench/README.md, "Cabinet pages with 10,000 orders".
 *
 * 1. A server process on the embedded default (`bench/server.ts`: PGlite in a DATA_DIR of its
 *    own, no DATABASE_URL, the secrets it generates there) makes a partner and an invitation
 *    through the operator API, and stops.
 * 2. This process opens that DATA_DIR and inserts the partner's orders straight into it
 *    (`bench/order-list-seed.ts`: a mix of pairs and statuses over the last 30 days, the
 *    exchanged ones with their commission figures; the order whose detail is read gets a
 *    five-event timeline), then closes it.
 * 3. A second server starts on the same DATA_DIR (as after a restart). The invited person sets
 *    a password and signs in through the forms, CSRF tokens and cookies as a browser sends them.
 * 4. Server time: each page requested in turn, sequentially over one keep-alive connection,
 *    `--samples` rounds (the pages' order rotated every round), after one first (cold) request
 *    per page; the time from sending the request to the last byte of the HTML.
 * 5. Browser time (Debian's `chromium` through playwright-core, as the browser test drives it;
 *    skipped, loudly, when chromium is not on PATH or with --no-browser): the overview and the
 *    orders list loaded `--browser-samples` times each, in turn, from the Navigation Timing
 *    entry: the HTML's last byte, DOMContentLoaded and load, from the navigation's start.
 *
 * The servers run with the bench's production-like settings (bench/server.ts: WORKER=off among
 * them); --worker runs the second one with the lifecycle worker in process, as a bare `npm start`
 * does (it then also works through the seeded orders while the pages are read).
 *
 * Flags: --orders <n> (default 10000), --samples <n> per page (default 20), --browser-samples
 * <n> per page (default 10), --no-browser, --worker.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/database.js';
import type { NewOrder } from '../src/db/schema/orders.js';
import { createPartner } from '../test/helpers/process/http-client.js';
import { CHROMIUM_ARGS, chromiumExecutable } from '../test/helpers/requirements.js';
import { DAY_MS, seedOrders } from './order-list-seed.js';
import { planCpus, type RunningServer, startServer } from './server.js';

const { values: flags } = parseArgs({
  options: {
    orders: { type: 'string', default: '10000' },
    samples: { type: 'string', default: '20' },
    'browser-samples': { type: 'string', default: '10' },
    'no-browser': { type: 'boolean', default: false },
    worker: { type: 'boolean', default: false },
  },
});
const ORDERS = Number(flags.orders);
const SAMPLES = Math.max(1, Number(flags.samples));
const BROWSER_SAMPLES = Math.max(1, Number(flags['browser-samples']));
const EMAIL = 'bench@cabinet.example';
const PASSWORD = 'harbor violet engine sparrow';
/** The goal of issue 16, ms. */
const GOAL_MS = 1000;

const log = (message: string) => process.stderr.write(`[bench:cabinet] ${message}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------
// A browser's share of the cabinet over real HTTP: cookies kept and sent back, forms posted with
// the CSRF token of the page they came from (test/helpers/cabinet-client.ts does the same in
// process for the tests).

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** From writing the request to the body's last byte. */
  ms: number;
}

class Browserless {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(readonly origin: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  request(method: 'GET' | 'POST', route: string, form?: Record<string, string>): Promise<Answer> {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.request(`${this.origin}${route}`, { method, agent: this.agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const ms = performance.now() - started;
          const answer = { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), ms };
          this.remember(answer);
          resolve(answer);
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  private remember(answer: Answer): void {
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970|max-age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(answer.body)?.[1];
    if (token !== undefined) this.csrf = token;
  }

  /** Reads the form's page, then posts it with that page's CSRF token; expects a 303. */
  async submit(formPage: string, action: string, fields: Record<string, string>): Promise<string> {
    const shown = await this.request('GET', formPage);
    if (shown.status !== 200) throw new Error(`GET ${formPage}: ${shown.status}`);
    const posted = await this.request('POST', action, { _csrf: this.csrf ?? '', ...fields });
    if (posted.status !== 303) throw new Error(`POST ${action}: ${posted.status} ${posted.body.slice(0, 500)}`);
    return String(posted.headers.location ?? '');
  }

  close(): void {
    this.agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------

interface Setup {
  partnerId: string;
  invitationPath: string;
}

/** The first server: a partner and an invitation for one of its people, through the operator API. */
async function firstStart(dataDir: string): Promise<Setup> {
  const started = performance.now();
  const server = await startServer({ engine: 'pglite', label: 'cabinet-setup', plan: planCpus(), dataDir });
  log(`first start (initdb, migrations) took ${seconds(performance.now() - started)}`);
  try {
    const partner = await createPartner(server.url, server.adminToken, { name: 'Cabinet Bench Partner' });
    const invited = await fetch(`${server.url}/admin/v1/partners/${partner.id}/invitations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL }),
    });
    const text = await invited.text();
    if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${text}`);
    return { partnerId: partner.id, invitationPath: new URL((JSON.parse(text) as { url: string }).url).pathname };
  } finally {
    await server.stop();
  }
}

/** Status of the exchanged orders: their commission figures are set as the exchange records them. */
const EXCHANGED = new Set<string>(['sending', 'completed', 'failed']);

/** ORDERS orders of the partner over the last 30 days, and a timeline for one completed order. */
async function seed(dataDir: string, partnerId: string): Promise<{ detailOrderId: string; searchAddress: string; ms: number }> {
  const started = performance.now();
  const handle = await openDatabase({ engine: 'pglite', dataDir });
  try {
    const decorate = (row: NewOrder): NewOrder => {
      if (!EXCHANGED.has(row.status)) return row;
      const exchangedAt = new Date(new Date(row.created_at).getTime() + 20 * 60_000);
      return { ...row, amount_to_final: '12.25', partner_fee: '0.0245', partner_fee_usd: '0.07350000', volume_usd: '36.75000000', exchanged_at: exchangedAt };
    };
    const {
      sample: [order],
    } = await seedOrders(handle.db, [partnerId], { count: ORDERS, start: Date.now() - 30 * DAY_MS + 60_000, decorate });
    const at = (minutes: number) => new Date(new Date(order.created_at).getTime() + minutes * 60_000);
    const moves = [
      [null, 'waiting_deposit'],
      ['waiting_deposit', 'confirming'],
      ['confirming', 'exchanging'],
      ['exchanging', 'sending'],
      ['sending', 'completed'],
    ] as const;
    await handle.db
      .insertInto('order_events')
      .values(moves.map(([from, to], version) => ({ id: randomUUID(), order_id: order.id ?? '', from_status: from, to_status: to, reason: null, data: null, order_version: version, created_at: at(version * 10) })))
      .execute();
    return { detailOrderId: order.id ?? '', searchAddress: order.recipient_address, ms: performance.now() - started };
  } finally {
    await handle.close();
  }
}

interface PageCase {
  name: string;
  path: string;
  /** Something the full page has (so a redirect or an error page is never timed as the page). */
  expect: RegExp;
}

interface PageTimes {
  page: PageCase;
  bytes: number;
  /** Orders in the page's table (lists). */
  rows: number;
  cold: number;
  samples: number[];
}

/** Signs the invited person in, finds the pages' paths (the next page's link), times each page. */
async function serverTimes(server: RunningServer, setup: Setup, detailOrderId: string, searchAddress: string): Promise<{ times: PageTimes[]; client: Browserless }> {
  const client = new Browserless(server.url);
  const afterPassword = await client.submit(setup.invitationPath, setup.invitationPath, { password: PASSWORD, confirm: PASSWORD });
  if (!afterPassword.startsWith('/cabinet/login')) throw new Error(`setting the password went to ${afterPassword}`);
  const signedIn = await client.submit('/cabinet/login', '/cabinet/login', { email: EMAIL, password: PASSWORD });
  if (signedIn !== '/cabinet') throw new Error(`signing in went to ${signedIn}`);
  const since = new Date(Date.now() - 14 * DAY_MS).toISOString().slice(0, 10);
  const pages: PageCase[] = [
    { name: 'Overview', path: '/cabinet', expect: /<h2>Orders per day<\/h2>/ },
    { name: 'Orders (newest 50)', path: '/cabinet/orders', expect: /rel="next"/ },
    { name: 'Orders, filtered (status, coin, from date)', path: `/cabinet/orders?status=completed&coin_from=BTC&from=${since}`, expect: /Show orders/ },
    { name: 'Orders, filtered and searched (status + recipient address)', path: `/cabinet/orders?status=completed&search=${encodeURIComponent(searchAddress)}`, expect: /Show orders/ },
    { name: 'Order detail (5 events, QR)', path: `/cabinet/orders/${detailOrderId}`, expect: /<ol class="timeline">/ },
    { name: 'API keys', path: '/cabinet/keys', expect: /Create key/ },
    { name: 'Webhooks', path: '/cabinet/webhooks', expect: /Add endpoint/ },
    { name: 'Settings', path: '/cabinet/settings', expect: /<h1>Settings<\/h1>/ },
    { name: 'Account', path: '/cabinet/account', expect: /<h1>Account<\/h1>/ },
  ];
  // The second page of the list, by the first page's own link.
  const first = await client.request('GET', '/cabinet/orders');
  const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
  if (next === undefined) throw new Error('the orders list has no next page');
  pages.splice(2, 0, { name: 'Orders, second page (cursor)', path: next, expect: /<tbody>/ });

  const times = new Map<string, PageTimes>();
  const get = async (one: PageCase) => {
    const answer = await client.request('GET', one.path);
    if (answer.status !== 200 || !one.expect.test(answer.body)) throw new Error(`GET ${one.path}: ${answer.status}, not the page (${answer.body.slice(0, 300)})`);
    return answer;
  };
  // The first request of each page after the restart (the list's first page was read above).
  for (const one of pages) {
    const answer = await get(one);
    times.set(one.path, { page: one, bytes: Buffer.byteLength(answer.body), rows: answer.body.split('data-label="Order"').length - 1, cold: answer.ms, samples: [] });
  }
  times.get('/cabinet/orders')!.cold = first.ms;
  for (let round = 0; round < SAMPLES; round++) {
    for (let i = 0; i < pages.length; i++) {
      const one = pages[(round + i) % pages.length]!;
      times.get(one.path)!.samples.push((await get(one)).ms);
    }
  }
  return { times: pages.map((one) => times.get(one.path)!), client };
}

interface BrowserTimes {
  name: string;
  /** Per load, ms from the navigation's start: the HTML's last byte, DOMContentLoaded, load. */
  html: number[];
  domContentLoaded: number[];
  load: number[];
}

/** The overview and the orders list in chromium, signed in with the session cookie. */
async function browserTimes(server: RunningServer, client: Browserless): Promise<BrowserTimes[] | string> {
  if (flags['no-browser']) return 'skipped (--no-browser)';
  const executable = chromiumExecutable();
  if (executable === undefined) return "SKIPPED: chromium is not on PATH (install Debian's `chromium` package)";
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(path.join(tmpdir(), 'bench-cabinet-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable,
    headless: true,
    args: [...CHROMIUM_ARGS, '--disable-quic', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
  });
  try {
    const { hostname } = new URL(server.url);
    await context.addCookies(
      [...client.cookies].map(([name, value]) => ({ name, value, domain: hostname, path: '/cabinet', httpOnly: true, sameSite: 'Strict' as const, secure: false })),
    );
    const tab = context.pages()[0] ?? (await context.newPage());
    const pages = [
      { name: 'Overview', path: '/cabinet', heading: 'Overview' },
      { name: 'Orders (newest 50)', path: '/cabinet/orders', heading: 'Orders' },
    ];
    const results = pages.map((one) => ({ name: one.name, html: [] as number[], domContentLoaded: [] as number[], load: [] as number[] }));
    const visit = async (index: number, record: boolean) => {
      const one = pages[index]!;
      const response = await tab.goto(`${server.url}${one.path}`, { waitUntil: 'load' });
      if (response?.status() !== 200) throw new Error(`chromium: ${one.path} answered ${response?.status()}`);
      if ((await tab.getByRole('heading', { name: one.heading, level: 1 }).count()) !== 1) throw new Error(`chromium: ${one.path} is not the ${one.heading} page`);
      // A string: this file is typed without the DOM's library.
      const timing = await tab.evaluate<{ html: number; domContentLoaded: number; load: number }>(
        '(() => { const entry = performance.getEntriesByType("navigation")[0]; return { html: entry.responseEnd, domContentLoaded: entry.domContentLoadedEventEnd, load: entry.loadEventEnd }; })()',
      );
      if (!record) return;
      const result = results[index]!;
      result.html.push(timing.html);
      result.domContentLoaded.push(timing.domContentLoaded);
      result.load.push(timing.load);
    };
    // One load each first: the stylesheet and script then come from the browser's cache, as for
    // a person moving between pages.
    for (let i = 0; i < pages.length; i++) await visit(i, false);
    for (let round = 0; round < BROWSER_SAMPLES; round++) {
      for (let i = 0; i < pages.length; i++) await visit((round + i) % pages.length, true);
    }
    return results;
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const max = (values: number[]) => Math.max(...values);
const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
const verdict = (worst: number) => (worst < GOAL_MS ? 'yes' : '**no**');

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-cabinet-'));
  try {
    const setup = await firstStart(dataDir);
    log(`seeding ${ORDERS} orders of one partner`);
    const seeded = await seed(dataDir, setup.partnerId);
    log(`seeded in ${seconds(seeded.ms)}`);
    const restarted = performance.now();
    const server = await startServer({ engine: 'pglite', label: 'cabinet', plan: planCpus(), dataDir, ...(flags.worker ? { env: { WORKER: 'in-process' } } : {}) });
    const restartMs = performance.now() - restarted;
    let lines: string[];
    try {
      log(`server up again in ${seconds(restartMs)}; signing in and timing ${SAMPLES} rounds of every page`);
      const { times, client } = await serverTimes(server, setup, seeded.detailOrderId, seeded.searchAddress);
      log('chromium');
      const browser = await browserTimes(server, client);
      client.close();
      const rss = server.memory();
      lines = [
        `${ORDERS} orders of one partner (PGlite, the embedded default; worker ${flags.worker ? 'in process' : 'off'}), ${new Date().toISOString()}, node ${process.version}, ` +
          `load average before ${loadBefore}, after ${loadAverage()}; server RSS ${(rss.rss / 1048576).toFixed(0)} MB (peak ${(rss.peak / 1048576).toFixed(0)} MB). ` +
          `Seeding took ${seconds(seeded.ms)}, the restart on the seeded DATA_DIR ${seconds(restartMs)}.`,
        '',
        `Server time to the full HTML, ms (one keep-alive connection, sequential; first request after the restart, then ${SAMPLES} per page in rotation):`,
        '',
        '| page | orders listed | HTML | first | median | max | under 1 s |',
        '|---|---:|---:|---:|---:|---:|---|',
        ...times.map(
          (one) =>
            `| ${one.page.name} | ${one.rows === 0 ? '' : one.rows} | ${(one.bytes / 1024).toFixed(1)} KB | ${ms(one.cold)} | ${ms(median(one.samples))} | ${ms(max(one.samples))} | ${verdict(Math.max(one.cold, max(one.samples)))} |`,
        ),
        '',
      ];
      if (typeof browser === 'string') {
        log(`browser: ${browser}`);
        lines.push(`Chromium: ${browser}.`, '');
      } else {
        lines.push(
          `Chromium (headless, stylesheet and script cached), ms from the navigation's start, median / max of ${BROWSER_SAMPLES} loads per page:`,
          '',
          '| page | HTML received | DOMContentLoaded | load | under 1 s |',
          '|---|---:|---:|---:|---|',
          ...browser.map(
            (one) =>
              `| ${one.name} | ${ms(median(one.html))} / ${ms(max(one.html))} | ${ms(median(one.domContentLoaded))} / ${ms(max(one.domContentLoaded))} | ` +
              `${ms(median(one.load))} / ${ms(max(one.load))} | ${verdict(max(one.load))} |`,
          ),
          '',
        );
      }
    } finally {
      await server.stop();
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
