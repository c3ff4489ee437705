import type { App } from '../../app-types.js';
import { isMode } from '../../domain/modes.js';
import { formField, sessionOf, type CabinetSessions } from './session.js';

/** A page of the cabinet to come back to (a path of ours, nothing else: no open redirect). */
const CABINET_PATH = /^\/cabinet(?:\/[A-Za-z0-9_./-]{0,200})?$/;

/**
 * POST /cabinet/mode: the test/live switch (docs/contract.md §9.1): the mode cookie, then 303 back to the
 * page the switch was on (its list, counts and forms now of the other mode). Not a partner
 * action: it changes a view, not the partner's data.
 */
export function registerCabinetMode(app: App, sessions: CabinetSessions): void {
  app.post('/cabinet/mode', { schema: { hide: true }, preHandler: sessions.required }, async (request, reply) => {
    const session = sessionOf(request);
    const mode = formField(request, 'mode');
    const back = formField(request, 'back') ?? '/cabinet';
    if (!isMode(mode)) return sessions.flash.redirect(reply, session, '/cabinet', 'problem', 'Choose live or test mode.');
    sessions.setMode(request, reply, mode);
    // A detail page of one thing (an order, an endpoint) stays; its list follows the mode.
    return reply.redirect(CABINET_PATH.test(back) && !back.includes('..') ? back : '/cabinet', 303);
  });
}
