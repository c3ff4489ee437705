import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { CorsOrigins, MarkupBps, MaxOpenOrders, PartnerIdParams, PartnerStatus, RateLimit, adminSecurity, partnerView } from './admin-schemas.js';

const Body = Type.Object(
  {
    status: Type.Optional(PartnerStatus),
    markup_bps: Type.Optional(MarkupBps),
    rate_limit_per_minute: Type.Optional(RateLimit),
    max_open_orders: Type.Optional(MaxOpenOrders),
    cors_origins: Type.Optional(CorsOrigins),
  },
  { additionalProperties: false, minProperties: 1 },
);

/**
 * Suspension takes effect on the partner's next request to this process (its cached key rows
 * are dropped here) and, through the authentication change feed, in every other API process
 * within milliseconds (infrastructure/auth-changes.ts).
 */
export function registerUpdatePartner(app: App, { partners }: Services): void {
  app.patch(
    '/admin/v1/partners/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Change status, markup, rate limit, open-order cap or allowed web origins',
        security: adminSecurity,
        params: PartnerIdParams,
        body: Body,
        response: { 200: Type.Ref('AdminPartner'), ...errorResponses(400, 401, 404, 415, 500) },
      },
    },
    async (request) => partnerView(await partners.change(request.params.id, request.body)),
  );
}
