import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { PartnerPersonParams, adminSecurity } from './admin-schemas.js';

/**
 * DELETE /admin/v1/partners/{id}/people/{person_id}: removes the person from the
 * partner's cabinet: the account, its sessions (signed out at once), recovery codes and reset
 * links. The record (account-actions) keeps who it was. The email may be invited again. 404:
 * no such person of this partner (a second DELETE too).
 */
export function registerRemovePartnerPerson(app: App, { cabinet }: Services): void {
  app.delete(
    '/admin/v1/partners/:id/people/:person_id',
    {
      schema: {
        tags: ['admin'],
        summary: "Remove a person from a partner's cabinet",
        security: adminSecurity,
        params: PartnerPersonParams,
        // 400: a body, which DELETE does not need, that is not valid JSON.
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      if (!(await cabinet.people.remove(request.params.id, request.params.person_id, request.ip))) {
        throw new ApiError('not_found', 'this partner has no cabinet person with this id');
      }
      return reply.code(204).send(null);
    },
  );
}
