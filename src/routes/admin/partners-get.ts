import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { findPartner } from '../../db/repositories/partners-repository.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { PartnerIdParams, adminSecurity, partnerView } from './admin-schemas.js';

export function registerGetPartner(app: App, { database }: Services): void {
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
      const row = await findPartner(database.db, request.params.id);
      if (row === undefined) throw new ApiError('not_found', 'partner not found');
      return partnerView(row);
    },
  );
}
