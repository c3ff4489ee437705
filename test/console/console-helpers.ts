import assert from 'node:assert/strict';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { CabinetClient } from '../helpers/cabinet-client.js';
import type { ManualClock, TestApp } from '../helpers/test-app.js';
import { BTC_CONFIRMATIONS, createOrder, injectFault, setConfirmations, simulateDeposit, storedOrder, type Harness, type OrderJson } from '../lifecycle/lifecycle-helpers.js';

export const CONSOLE_PASSWORD = 'quartz lantern meadow violin';

/** The TOTP key the enrolment page shows. */
export const enrolmentKey = (body: string): string => /id="totp-key">([A-Z2-7 ]+)</.exec(body)?.[1]?.replace(/ /g, '') ?? '';

/**
 * A person of the operator invited with the bootstrap token, who set their password, signed in
 * and enrolled two-factor through the console's pages (the client keeps the session cookie).
 */
export async function consolePerson(
  t: TestApp,
  clock: ManualClock,
  options: { email: string; role: 'viewer' | 'support' | 'finance' | 'admin'; address?: string },
): Promise<{ client: CabinetClient; secret: string; id: string }> {
  const invited = await t.admin('POST', '/admin/v1/operators', { email: options.email, role: options.role, name: `Person ${options.role}` });
  assert.equal(invited.statusCode, 201, invited.body);
  const { url, id } = invited.json<{ url: string; id: string }>();
  const client = new CabinetClient(t, options.address ?? '198.51.100.77');
  const path = new URL(url).pathname;
  assert.equal((await client.get(path)).statusCode, 200);
  const set = await client.post(path, { password: CONSOLE_PASSWORD, confirm: CONSOLE_PASSWORD });
  assert.equal(set.statusCode, 303, set.body);
  await client.get('/console/login');
  const signIn = await client.post('/console/login', { email: options.email, password: CONSOLE_PASSWORD });
  assert.equal(signIn.statusCode, 303, signIn.body);
  assert.equal(signIn.headers.location, '/console/login/code');
  const enrol = await client.get('/console/login/code');
  const secret = enrolmentKey(enrol.body);
  assert.notEqual(secret, '', enrol.body);
  const on = await client.post('/console/login/code', { code: totpCode(secret, totpStep(clock.now())) });
  assert.equal(on.statusCode, 200, on.body);
  assert.equal([...on.body.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].length, 10, 'ten recovery codes');
  clock.advance(30_000);
  return { client, secret, id };
}

/**
 * An order whose exchange failed once (the simulator's fault) and waits for its retry: in
 * exchanging with a spent attempt and a backoff, as a stuck order is before an operator looks.
 */
export async function orderWithFailedExchange(h: Harness): Promise<OrderJson> {
  const order = await createOrder(h);
  await injectFault(h, 'exchange', 1, false);
  await simulateDeposit(h, order.id);
  await h.t.runtime.worker.tick();
  await setConfirmations(h, order.id, BTC_CONFIRMATIONS);
  await h.t.runtime.worker.tick();
  const stored = await storedOrder(h, order.id);
  assert.equal(stored?.status, 'exchanging');
  assert.equal(stored?.attempts, 1);
  return order;
}
