import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';

const Account = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    rate_limit_per_minute: Type.Integer({ description: 'requests per minute allowed per key' }),
    markup_bps: Type.Integer({ description: "the partner's markup on quotes, in basis points" }),
  },
  { additionalProperties: false },
);

/** GET /api/v1/partner/account: who the presented key belongs to (extension). */
export function registerPartnerAccount(app: App, { partnerAuth }: Services): void {
  app.get(
    '/api/v1/partner/account',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: "The calling partner's account",
        operationId: 'getAccount',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        response: { 200: Account, ...errorResponses(401, 403, 429, 500) },
      },
    },
    async (request) => {
      // preValidation guarantees it; the check keeps the type honest.
      const partner = request.partner;
      if (partner === undefined) throw new Error('partner auth hook did not run');
      return {
        id: partner.id,
        name: partner.name,
        status: partner.status,
        rate_limit_per_minute: partner.rate_limit_per_minute,
        markup_bps: partner.markup_bps,
      };
    },
  );
}
