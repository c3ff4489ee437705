import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { PartnerPersonParams, adminSecurity, cabinetPersonView } from './admin-schemas.js';

/**
 * POST /admin/v1/partners/{id}/people/{person_id}/end-sessions: signs the person
 * out everywhere at once (sessions live in the database: every process sees it on the next
 * request). Recorded with how many sessions ended. 404: no such person of this partner.
 */
export function registerEndPersonSessions(app: App, { cabinet }: Services): void {
  app.post(
    '/admin/v1/partners/:id/people/:person_id/end-sessions',
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['admin'],
        summary: "End every cabinet session of a person",
        security: adminSecurity,
        params: PartnerPersonParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref('AdminCabinetPerson'), ...errorResponses(400, 401, 404, 415, 500) },
      },
    },
    async (request) => {
      const person = await cabinet.people.endSessions(request.params.id, request.params.person_id, request.ip);
      if (person === undefined) throw new ApiError('not_found', 'this partner has no cabinet person with this id');
      return cabinetPersonView(person);
    },
  );
}
