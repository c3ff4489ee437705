import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { errorResponses } from '../schemas.js';
import { callerScope, EndpointParams, partnerSecurity } from './webhooks-shared.js';

/** DELETE /api/v1/partner/webhooks/{id} (API key): the endpoint and its delivery log (an operator-disabled one is 409). */
export function registerDeleteWebhook(app: App, { partnerAuth, webhooks }: Services): void {
  app.delete(
    '/api/v1/partner/webhooks/:id',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Delete a webhook endpoint',
        description: 'Only an endpoint of the key\'s mode (the other mode\'s are 404). One the operator disabled stays until the operator enables it (409).',
        operationId: 'deleteWebhook',
        security: partnerSecurity,
        params: EndpointParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409, 429, 500) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.params.id, callerScope(request));
      return reply.code(204).send(null);
    },
  );
}
