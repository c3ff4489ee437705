import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { PartnerPersonParams, adminSecurity, cabinetPersonView } from './admin-schemas.js';

/**
 * POST /admin/v1/partners/{id}/people/{person_id}/clear-2fa: clears the person's
 * TOTP two-factor (a lost authenticator, or one a thief enrolled with a stolen session): the
 * secret and recovery codes go, the next sign-in asks for the password only. Recorded
 * (account-actions). Repeating it is harmless. 404: no such person of this partner.
 */
export function registerClearPersonTwoFactor(app: App, { cabinet }: Services): void {
  app.post(
    '/admin/v1/partners/:id/people/:person_id/clear-2fa',
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['admin'],
        summary: "Clear a cabinet person's two-factor sign-in",
        security: adminSecurity,
        params: PartnerPersonParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref('AdminCabinetPerson'), ...errorResponses(400, 401, 404, 415, 500) },
      },
    },
    async (request) => {
      const person = await cabinet.people.clearTwoFactor(request.params.id, request.params.person_id, request.ip);
      if (person === undefined) throw new ApiError('not_found', 'this partner has no cabinet person with this id');
      return cabinetPersonView(person);
    },
  );
}
