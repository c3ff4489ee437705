import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_ROLES, type OperatorRole } from '../../src/domain/operator-roles.js';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { CHANGE_ROLES } from '../../src/routes/admin/route-roles.js';
import { operatorAccountServices, type OperatorAccountServices } from '../../src/services/operator-people.js';
import { SecretBox } from '../../src/infrastructure/secret-box.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAdminCli } from '../helpers/admin-cli.js';
import { buildTestApp, ManualClock, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'quartz lantern meadow violin';

/**
 * The operator's people (docs/decisions.md, "Operator console"): the first admin invited with
 * the bootstrap token, two-factor required before a session opens, personal API tokens that
 * act with their person's role at most, a role check on every change route of the operator
 * API, and the audit log naming the person.
 */
describe('operator people, personal tokens and roles', () => {
  const clock = new ManualClock(new Date('2026-05-04T08:00:00.000Z'));
  let t: TestApp;
  let accounts: OperatorAccountServices;
  before(async () => {
    t = await buildTestApp({ clock, env: { WORKER: 'off' } });
    const key = t.config.secretsKey;
    assert.ok(key !== undefined);
    accounts = operatorAccountServices(t.db.handle.db, clock, new SecretBox(key), key, undefined);
  });
  after(() => t.close());

  /** Invited through the API, password set, signed in and enrolled: the person's id and TOTP secret. */
  async function person(email: string, role: OperatorRole): Promise<{ id: string; secret: string }> {
    const invited = await t.admin('POST', '/admin/v1/operators', { email, role, name: `Name of ${email}` });
    assert.equal(invited.statusCode, 201, invited.body);
    const { id, url } = invited.json<{ id: string; url: string }>();
    const secret = new URL(url).pathname.split('/').pop() ?? '';
    assert.deepEqual(await accounts.people.acceptInvitation(secret, PASSWORD), { ok: true, email });
    const signIn = await accounts.sessions.signIn(email, PASSWORD);
    assert.ok(signIn.ok && !signIn.enrolled, 'the first sign-in enrols');
    const session = await accounts.sessions.session(signIn.token);
    assert.ok(session !== undefined && session.session.second_factor_pending, 'nothing opens before the second factor');
    const enrolment = await accounts.twoFactor.enrolment(id);
    assert.ok(enrolment !== undefined);
    const confirmed = await accounts.sessions.completeEnrolment(signIn.token, session, totpCode(enrolment.secret, totpStep(clock.now())));
    assert.ok(confirmed.ok);
    assert.equal(confirmed.codes.length, 10);
    assert.equal((await accounts.sessions.session(signIn.token))?.session.second_factor_pending, false);
    clock.advance(30_000);
    return { id, secret: enrolment.secret };
  }

  async function tokenOf(personId: string, role: OperatorRole): Promise<string> {
    const made = await accounts.people.createToken(personId, `${role} token`, role);
    assert.ok(made.ok);
    t.secrets.add(made.token, `${role} personal token`);
    return made.token;
  }

  const call = (token: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.operator({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  it('the bootstrap token invites the first admin; the link works once, and the invitation is audited', async () => {
    const invited = await t.admin('POST', '/admin/v1/operators', { email: 'First.Admin@Ops.example', role: 'admin' });
    assert.equal(invited.statusCode, 201, invited.body);
    const body = invited.json<{ email: string; role: string; url: string }>();
    assert.equal(body.email, 'first.admin@ops.example');
    assert.match(body.url, /\/console\/invitation\/[A-Za-z0-9_-]{43}$/);
    const secret = new URL(body.url).pathname.split('/').pop() ?? '';
    const weak = await accounts.people.acceptInvitation(secret, 'short');
    assert.equal(weak.ok, false);
    assert.deepEqual(await accounts.people.acceptInvitation(secret, PASSWORD), { ok: true, email: 'first.admin@ops.example' });
    assert.equal((await accounts.people.acceptInvitation(secret, PASSWORD)).ok, false, 'once');
    const again = await t.admin('POST', '/admin/v1/operators', { email: 'first.admin@ops.example', role: 'viewer' });
    assert.equal(again.statusCode, 409, 'an email that signs in already');
    const audit = await t.admin('GET', '/admin/v1/audit?action=POST%20/admin/v1/operators');
    const entries = audit.json<{ entries: Array<{ actor: string; after: Record<string, unknown> }> }>().entries;
    assert.ok(entries.some((entry) => entry.actor === 'token:ADMIN_TOKEN'));
    assert.ok(entries.some((entry) => entry.after.url === '[redacted]'), 'the created answer is logged');
    assert.ok(!JSON.stringify(entries).includes(secret), 'the link is never logged');
  });

  it('npm run admin -- operators create prints the one-use link; a missing --role is a usage error', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'epa-cli-'));
    try {
      const env = { DATA_DIR: dataDir, ADMIN_API_URL: address, ADMIN_TOKEN: t.adminToken };
      const run = await runAdminCli(['operators', 'create', '--email', 'cli@ops.example', '--role', 'admin', '--name', 'Cli Admin'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /console invitation for cli@ops\.example as admin/);
      const link = /(http\S+\/console\/invitation\/\S+)/.exec(run.stdout)?.[1] ?? '';
      t.secrets.add(new URL(link).pathname.split('/').pop() ?? '', 'cli invitation');
      assert.equal((await accounts.people.openInvitation(new URL(link).pathname.split('/').pop() ?? '')).ok, true);
      const usage = await runAdminCli(['operators', 'create', '--email', 'cli2@ops.example'], env);
      assert.notEqual(usage.code, 0);
      assert.match(usage.stderr, /needs --email <address> --role/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a wrong password, an unknown email and a person who never set a password all fail the same way', async () => {
    await t.admin('POST', '/admin/v1/operators', { email: 'pending@ops.example', role: 'viewer' });
    assert.deepEqual(await accounts.sessions.signIn('pending@ops.example', PASSWORD), { ok: false });
    assert.deepEqual(await accounts.sessions.signIn('nobody@ops.example', PASSWORD), { ok: false });
    await person('wrong@ops.example', 'viewer');
    assert.deepEqual(await accounts.sessions.signIn('wrong@ops.example', 'not the password'), { ok: false });
  });

  it('a second sign-in asks for a code, used once; a recovery code also opens it', async () => {
    const { secret } = await person('codes@ops.example', 'support');
    const signIn = await accounts.sessions.signIn('codes@ops.example', PASSWORD);
    assert.ok(signIn.ok && signIn.enrolled);
    const session = await accounts.sessions.session(signIn.token);
    assert.ok(session !== undefined);
    assert.equal(await accounts.sessions.completeSecondFactor(signIn.token, session, '000000'), false);
    const code = totpCode(secret, totpStep(clock.now()));
    assert.equal(await accounts.sessions.completeSecondFactor(signIn.token, session, code), true);
    const other = await accounts.sessions.signIn('codes@ops.example', PASSWORD);
    assert.ok(other.ok);
    const otherSession = await accounts.sessions.session(other.token);
    assert.ok(otherSession !== undefined);
    assert.equal(await accounts.sessions.completeSecondFactor(other.token, otherSession, code), false, 'a code works once');
  });

  it('a personal token acts as its person, audited by name; revoked, it is refused', async () => {
    const { id } = await person('finance@ops.example', 'finance');
    const token = await tokenOf(id, 'finance');
    const listed = await call(token, 'GET', '/admin/v1/partners');
    assert.equal(listed.statusCode, 200, listed.body);
    const created = await call(token, 'POST', '/admin/v1/partners', { name: 'Not allowed' });
    assert.equal(created.statusCode, 403);
    assert.match(created.json<{ detail: string }>().detail, /admin role/);
    const approve = await call(token, 'POST', `/admin/v1/payouts/${crypto.randomUUID()}/approve`, {});
    assert.notEqual(approve.statusCode, 403, approve.body);
    const audit = await t.admin('GET', `/admin/v1/audit?actor=${encodeURIComponent('person:finance@ops.example')}`);
    const actions = audit.json<{ entries: Array<{ action: string; status: number }> }>().entries.map((entry) => `${entry.action} ${entry.status}`);
    assert.ok(actions.includes('POST /admin/v1/partners 403'), actions.join(', '));
    assert.ok(actions.some((action) => action.startsWith('POST /admin/v1/payouts/:id/approve')), actions.join(', '));

    assert.equal(await accounts.people.revokeToken(id, (await accounts.people.tokens(id))[0]!.id), true);
    assert.equal((await call(token, 'GET', '/admin/v1/partners')).statusCode, 401);
  });

  it('a token never does more than its person: its own role, or the person\'s lowered one', async () => {
    const { id } = await person('lowered@ops.example', 'admin');
    assert.equal((await accounts.people.createToken(id, 'x', 'admin')).ok, true);
    const viewerToken = await tokenOf(id, 'viewer');
    assert.equal((await call(viewerToken, 'POST', `/admin/v1/orders/${crypto.randomUUID()}/refund`)).statusCode, 403);
    const adminToken = await tokenOf(id, 'admin');
    assert.equal((await accounts.people.changeRole(id, 'support')).ok, true);
    assert.equal((await call(adminToken, 'POST', '/admin/v1/partners', { name: 'x' })).statusCode, 403, 'the person is support now');
    const { id: supportId } = await person('support@ops.example', 'support');
    assert.deepEqual(await accounts.people.createToken(supportId, 'too much', 'admin'), { ok: false, problem: 'A token cannot do more than your role (support).' });
  });

  it('clearing two-factor suspends the person\'s tokens and ends their sessions until they enrol again', async () => {
    const { id } = await person('cleared@ops.example', 'viewer');
    const token = await tokenOf(id, 'viewer');
    assert.equal((await call(token, 'GET', '/admin/v1/health')).statusCode, 200);
    assert.equal(await accounts.people.clearTwoFactor(id), true);
    assert.equal((await call(token, 'GET', '/admin/v1/health')).statusCode, 401);
    const signIn = await accounts.sessions.signIn('cleared@ops.example', PASSWORD);
    assert.ok(signIn.ok && !signIn.enrolled, 'the next sign-in enrols again');
  });

  it('the last admin cannot be demoted or removed', async () => {
    const fresh = await buildTestApp({ clock, env: { WORKER: 'off' } });
    try {
      const key = fresh.config.secretsKey;
      assert.ok(key !== undefined);
      const own = operatorAccountServices(fresh.db.handle.db, clock, new SecretBox(key), key, undefined).people;
      const invited = await fresh.admin('POST', '/admin/v1/operators', { email: 'only@ops.example', role: 'admin' });
      const { id, url } = invited.json<{ id: string; url: string }>();
      await own.acceptInvitation(new URL(url).pathname.split('/').pop() ?? '', PASSWORD);
      assert.equal((await own.changeRole(id, 'viewer')).ok, false);
      assert.equal((await own.remove(id)).ok, false);
    } finally {
      await fresh.close();
    }
  });

  it('every change route of the operator API needs its role: the role below it gets 403 with a detail', async () => {
    const { id } = await person('roles@ops.example', 'admin');
    const tokens = new Map<OperatorRole, string>();
    for (const role of OPERATOR_ROLES) tokens.set(role, await tokenOf(id, role));
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const [route, minimum] of Object.entries(CHANGE_ROLES)) {
      const [method, path] = route.split(' ') as ['POST' | 'PUT' | 'PATCH' | 'DELETE', string];
      const url = path.replace(/:[a-z_]+/g, (param) => (param === ':chain' ? 'BTC' : param === ':coin' ? 'BTC' : uuid));
      for (const role of OPERATOR_ROLES) {
        const res = await call(tokens.get(role)!, method, url);
        const allowed = OPERATOR_ROLES.indexOf(role) >= OPERATOR_ROLES.indexOf(minimum);
        if (allowed) {
          assert.notEqual(res.statusCode, 403, `${role} on ${route}: ${res.body}`);
        } else {
          assert.equal(res.statusCode, 403, `${role} on ${route}: ${res.body}`);
          assert.match(String(res.headers['content-type']), /json/);
          assert.match(res.json<{ detail: string }>().detail, new RegExp(`needs the ${minimum} role`));
        }
      }
    }
    // Reads are every role's.
    for (const role of OPERATOR_ROLES) assert.equal((await call(tokens.get(role)!, 'GET', '/admin/v1/audit')).statusCode, 200);
  });
});
