import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { PartnerIdParams, adminSecurity, cabinetPersonView } from './admin-schemas.js';

/**
 * GET /admin/v1/partners/{id}/people: the people of the partner's cabinet, oldest
 * first, each with its id (what the routes under /people/{person_id} take), two-factor and live
 * sessions; never a password hash or a secret.
 */
export function registerListPartnerPeople(app: App, { partners, cabinet }: Services): void {
  app.get(
    '/admin/v1/partners/:id/people',
    {
      schema: {
        tags: ['admin'],
        summary: "The people of a partner's cabinet",
        security: adminSecurity,
        params: PartnerIdParams,
        response: { 200: Type.Array(Type.Ref('AdminCabinetPerson')), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => {
      const partner = await partners.existing(request.params.id);
      return (await cabinet.people.list(partner.id)).map(cabinetPersonView);
    },
  );
}
