import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { PartnerIdParams, adminSecurity, partnerView } from './admin-schemas.js';

export function registerGetPartner(app: App, { partners }: Services): void {
  app.get(
    '/admin/v1/partners/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One partner',
        security: adminSecurity,
        params: PartnerIdParams,
        response: { 200: Type.Ref('AdminPartner'), ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => {
      return partnerView(await partners.existing(request.params.id));
    },
  );
}
