import type { FastifyReply } from 'fastify';
import type { FormTokens } from '../../services/account-secrets.js';

/** The session a message is signed for: only its token is used. */
type CabinetSession = { readonly token: string };

/** The longest message a redirect carries (a service's refusal is one sentence). */
const FLASH_MAX = 600;

/**
 * A form's outcome carried across its 303 (the console's too) (docs/contract.md §9.1: every POST answers 303 to a page), in
 * the query of the page it leads to: `flash=<text, base64url>.<MAC>`. The MAC is the session's
 * (HMAC of the CSRF key over the session token and the text), so a page shows only what this
 * server said to this session: a link someone else made cannot put words into the cabinet.
 */
export class Flash {
  /** `forms`: the surface's CSRF keys (the cabinet's, or the console's), which sign its messages. */
  constructor(private readonly forms: Pick<FormTokens, 'token' | 'matches'>) {}

  private mac(session: CabinetSession, kind: FlashKind, payload: string): string {
    return this.forms.token(`flash:${kind}:${session.token}:${payload}`);
  }

  /** The query parameter of a message (to append to the page's path). */
  param(session: CabinetSession, kind: FlashKind, text: string): string {
    const payload = Buffer.from(text.slice(0, FLASH_MAX), 'utf8').toString('base64url');
    return `${kind}=${payload}.${this.mac(session, kind, payload)}`;
  }

  /** 303 to `path` (which may hold a query already) with the message. */
  redirect(reply: FastifyReply, session: CabinetSession, path: string, kind: FlashKind, text: string): FastifyReply {
    return reply.redirect(`${path}${path.includes('?') ? '&' : '?'}${this.param(session, kind, text)}`, 303);
  }

  /** The notice and problem a page's query carries, when this server signed them for this session. */
  read(session: CabinetSession, query: unknown): { notice?: string; problem?: string } {
    const found: { notice?: string; problem?: string } = {};
    for (const kind of FLASH_KINDS) {
      const value = (query as Record<string, unknown> | undefined)?.[kind];
      if (typeof value !== 'string') continue;
      const [payload = '', mac] = value.split('.');
      if (!/^[A-Za-z0-9_-]{1,1000}$/.test(payload) || !this.forms.matches(`flash:${kind}:${session.token}:${payload}`, mac)) continue;
      found[kind] = Buffer.from(payload, 'base64url').toString('utf8');
    }
    return found;
  }
}

const FLASH_KINDS = ['notice', 'problem'] as const;
export type FlashKind = (typeof FLASH_KINDS)[number];
