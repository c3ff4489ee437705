import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { STORABLE_TEXT_PATTERN, adminOrderView, adminSecurity } from './admin-schemas.js';
import { OrderRefParams } from './order-ref.js';

/**
 * POST /admin/v1/orders/{id}/fail: the operator fails a non-final order by hand, through the
 * lifecycle (`operator_fail`); the note is recorded in the audit trail. A move the table refuses is 409.
 */
export function registerAdminFailOrder(app: App, { clock, lifecycle, linkBase }: Services): void {
  app.post(
    '/admin/v1/orders/:id/fail',
    {
      schema: {
        tags: ['admin'],
        summary: 'Fail a non-final order by hand (the reason is recorded)',
        security: adminSecurity,
        params: OrderRefParams,
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: 500, pattern: STORABLE_TEXT_PATTERN }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const result = await lifecycle.apply(request.params.id, 'operator_fail', {
        reason: 'operator',
        data: { note: request.body.reason },
      });
      if (!result.ok) {
        if (result.reason === 'order not found') throw new ApiError('not_found', 'order not found');
        throw new ApiError('conflict', result.reason);
      }
      return sendJsonText(reply, toJson(adminOrderView(result.order, clock.now(), linkBase)));
    },
  );
}
