import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './test-app.js';

/**
 * A browser's share of the cabinet through app.inject: it keeps the cookies the app sets and
 * sends them back, and posts forms with the CSRF token of the last page it read (as a browser
 * posts the form it was shown). Each client has its own client address.
 */
export class CabinetClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read that had a form. */
  csrf: string | undefined;
  lastBody = '';

  constructor(
    private readonly t: TestApp,
    readonly address = '198.51.100.10',
  ) {}

  private remember(res: LightMyRequestResponse): void {
    const set = res.headers['set-cookie'];
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*expires=Thu, 01 Jan 1970/i.test(attribute) || /^\s*max-age=0$/i.test(attribute));
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    this.lastBody = res.body;
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token !== undefined) this.csrf = token;
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.t.app.inject({ method: 'GET', url, remoteAddress: this.address, headers: this.cookieHeader() });
    this.remember(res);
    return res;
  }

  /** Posts `fields` as a form, with `_csrf` from the last page unless the fields say otherwise. */
  async post(url: string, fields: Record<string, string>, options: { csrf?: string | null; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const body = new URLSearchParams({ ...(csrf === null || csrf === undefined ? {} : { _csrf: csrf }), ...fields }).toString();
    const res = await this.t.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.address,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader(), ...options.headers },
      payload: body,
    });
    this.remember(res);
    return res;
  }

  /**
   * Posts a form as a browser does: every cabinet POST answers 303 to a page (docs/contract.md §9.1),
   * which is read next. Asserts the 303; answers the page.
   */
  async submit(url: string, fields: Record<string, string>, options: { csrf?: string | null; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
    const posted = await this.post(url, fields, options);
    assert.equal(posted.statusCode, 303, `POST ${url}: ${posted.statusCode} ${posted.body.slice(0, 300)}`);
    return this.get(String(posted.headers.location));
  }

  /** Signs in (reading the form first, as a browser would); asserts the redirect into the cabinet. */
  async signIn(email: string, password: string): Promise<void> {
    await this.get('/cabinet/login');
    const res = await this.post('/cabinet/login', { email, password });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/cabinet');
  }
}

/** An invitation's token from its link. */
export function invitationPath(url: string): string {
  return new URL(url).pathname;
}

/** A partner, a person invited to its cabinet who set `password`, and that person signed in. */
export async function cabinetPerson(
  t: TestApp,
  options: { email: string; password: string; address?: string; partnerId?: string },
): Promise<{ partnerId: string; client: CabinetClient }> {
  const partnerId = options.partnerId ?? (await t.createPartner({ name: `Cabinet ${options.email}` })).id;
  const invited = await t.admin('POST', `/admin/v1/partners/${partnerId}/invitations`, { email: options.email });
  assert.equal(invited.statusCode, 201, invited.body);
  const client = new CabinetClient(t, options.address);
  const path = invitationPath(invited.json<{ url: string }>().url);
  await client.get(path);
  const set = await client.post(path, { password: options.password, confirm: options.password });
  assert.equal(set.statusCode, 303, set.body);
  await client.signIn(options.email, options.password);
  return { partnerId, client };
}
