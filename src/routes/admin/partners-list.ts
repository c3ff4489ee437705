import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity, partnerView } from './admin-schemas.js';

const Query = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    // PostgreSQL's OFFSET is a bigint: a larger number would fail the query (a 500), not page.
    offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
  },
  { additionalProperties: false },
);

export function registerListPartners(app: App, { partners }: Services): void {
  app.get(
    '/admin/v1/partners',
    {
      schema: {
        tags: ['admin'],
        summary: 'List partners, oldest first',
        security: adminSecurity,
        querystring: Query,
        response: { 200: Type.Array(Type.Ref('AdminPartner')), ...errorResponses(400, 401, 500) },
      },
    },
    async (request) => (await partners.list(request.query.limit, request.query.offset)).map(partnerView),
  );
}
