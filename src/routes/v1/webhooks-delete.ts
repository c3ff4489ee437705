import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { callerOf, EndpointParams, partnerSecurity } from './webhooks-shared.js';

/** DELETE /api/v1/partner/webhooks/{id} (API key): the endpoint and its delivery log. */
export function registerDeleteWebhook(app: App, { partnerAuth, webhooks }: Services): void {
  app.delete(
    '/api/v1/partner/webhooks/:id',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Delete a webhook endpoint',
        operationId: 'deleteWebhook',
        security: partnerSecurity,
        params: EndpointParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.params.id, callerOf(request).id);
      return reply.code(204).send(null);
    },
  );
}
