import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { PartnerIdParams, adminSecurity } from './admin-schemas.js';

const AccountAction = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    person_id: Type.String({ format: 'uuid', description: 'the person it was about (kept after a removal)' }),
    email: Type.String(),
    action: Type.Union(['clear_2fa', 'end_sessions', 'remove_person', 'password_reset_issued', 'password_reset_used'].map((name) => Type.Literal(name))),
    actor: Type.Union([Type.Literal('operator'), Type.Literal('person')], { description: 'operator: through the operator API; person: a reset link used' }),
    clear_2fa: Type.Boolean({ description: 'the action clears two-factor (a reset link issued with clear_2fa clears it when used)' }),
    sessions_ended: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()], { description: 'the address the request came from' }),
    at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/**
 * GET /admin/v1/partners/{id}/account-actions: what was done to the partner's
 * cabinet people, newest first: the operator's clear-2fa, end-sessions, removals and reset
 * links (with or without clear_2fa), and each reset link's use.
 */
export function registerListAccountActions(app: App, { partners, cabinet }: Services): void {
  app.get(
    '/admin/v1/partners/:id/account-actions',
    {
      schema: {
        tags: ['admin'],
        summary: "What was done to a partner's cabinet people, newest first",
        security: adminSecurity,
        params: PartnerIdParams,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) }, { additionalProperties: false }),
        response: { 200: Type.Array(AccountAction), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => {
      const partner = await partners.existing(request.params.id);
      const rows = await cabinet.people.actions(partner.id, request.query.limit);
      return rows.map((row) => ({
        id: row.id,
        person_id: row.person_id,
        email: row.email,
        action: row.action,
        actor: row.actor,
        clear_2fa: row.clear_2fa,
        sessions_ended: row.sessions_ended,
        ip: row.ip,
        at: row.at.toISOString(),
      }));
    },
  );
}
