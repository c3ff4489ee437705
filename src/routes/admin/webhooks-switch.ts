import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { absentBodyAsEmpty, errorResponses } from '../schemas.js';
import { adminEndpointView } from '../webhook-views.js';
import { adminSecurity } from './admin-schemas.js';

const Params = Type.Object({ id: Type.String({ format: 'uuid', description: 'the webhook endpoint id' }) });

/**
 * POST /admin/v1/webhooks/{id}/disable and …/enable: the operator's switch for any partner's
 * endpoint. One the operator disabled cannot be re-enabled by its partner.
 */
export function registerAdminSwitchWebhook(app: App, { webhooks }: Services): void {
  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/admin/v1/webhooks/:id/${action}`,
      {
        preValidation: absentBodyAsEmpty,
        schema: {
          tags: ['admin'],
          summary: action === 'disable' ? 'Disable a webhook endpoint (deliveries wait)' : 'Enable a webhook endpoint again',
          security: adminSecurity,
          params: Params,
          body: Type.Object({}, { additionalProperties: false }),
          response: { 200: Type.Ref('AdminWebhookEndpoint'), ...errorResponses(400, 401, 404, 415, 500) },
        },
      },
      async (request) => adminEndpointView(await webhooks.setEnabledByOperator(request.params.id, action === 'enable')),
    );
  }
}
