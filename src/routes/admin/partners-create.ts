import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { MarkupBps, MaxOpenOrders, RateLimit, adminSecurity, partnerView } from './admin-schemas.js';

const Body = Type.Object(
  {
    // Something visible, and nothing PostgreSQL cannot store (STORABLE_TEXT_PATTERN).
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^(?=[\\s\\S]*\\S)[^\\u0000\\p{Cs}]+$' }),
    markup_bps: Type.Optional(MarkupBps),
    rate_limit_per_minute: Type.Optional(RateLimit),
    max_open_orders: Type.Optional(MaxOpenOrders),
  },
  { additionalProperties: false },
);

export function registerCreatePartner(app: App, { partners }: Services): void {
  app.post(
    '/admin/v1/partners',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create a partner',
        security: adminSecurity,
        body: Body,
        response: { 201: Type.Ref('AdminPartner'), ...errorResponses(400, 401, 415, 500) },
      },
    },
    async (request, reply) => {
      const row = await partners.create(request.body);
      return reply.code(201).send(partnerView(row));
    },
  );
}
