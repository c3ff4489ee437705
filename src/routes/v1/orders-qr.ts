import { Type } from '@sinclair/typebox';
import QRCode from 'qrcode';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { partnerAccess } from '../../plugins/partner-auth.js';

/**
 * GET /api/v1/partner/orders/{order_id}/qr.svg (API key; others' orders are 404, as GET order):
 * a QR code of the order's deposit_uri (docs/contract.md §7.4), or of the bare deposit address where the
 * chain has no payment URI. Error correction M (15%): a printed or screen-photographed code
 * still reads, and a long EIP-681 token transfer stays a small symbol. The URI is fixed at
 * creation, so the image never changes: a private cache may keep it.
 */
export function registerOrderQr(app: App, { partnerAuth, orders }: Services): void {
  app.get(
    '/api/v1/partner/orders/:order_id/qr.svg',
    {
      preValidation: partnerAuth.required,
      // docs/contract.md §10.9: a client key may call it, from the pages of its partner's cors_origins.
      config: { cors: 'partner' },
      schema: {
        tags: ['partner'],
        summary: "QR code of an order's deposit (SVG)",
        operationId: 'getOrderQr',
        description: 'Encodes deposit_uri, or deposit_address when deposit_uri is null.',
        security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
        params: Type.Object({
          order_id: Type.String({ description: 'the order UUID or its short_id (case-insensitive)' }),
        }),
        response: {
          200: {
            description: 'an SVG image of the QR code',
            content: { 'image/svg+xml': { schema: { type: 'string' } } },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const order = await orders.get(partnerAccess(request), request.params.order_id);
      const svg = await QRCode.toString(order.deposit_uri ?? order.deposit_address, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
      return reply.type('image/svg+xml').header('cache-control', 'private, max-age=3600').send(svg);
    },
  );
}
