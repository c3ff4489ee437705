import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { endpointView, EventList, WebhookDescription, WebhookUrl } from '../webhook-views.js';
import { errorResponses } from '../schemas.js';
import { callerScope, partnerSecurity } from './webhooks-shared.js';

const Body = Type.Object(
  { url: WebhookUrl, events: Type.Optional(EventList), description: Type.Optional(WebhookDescription) },
  { additionalProperties: false },
);

/** POST /api/v1/partner/webhooks (API key): a new endpoint and its signing secret, shown once (docs/contract.md §8). */
export function registerCreateWebhook(app: App, { partnerAuth, webhooks }: Services): void {
  app.post(
    '/api/v1/partner/webhooks',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Add a webhook endpoint',
        description:
          'Events are POSTed signed per the Standard Webhooks specification with the secret returned here (once). ' +
          'v1.2: the endpoint gets the key\'s mode and receives only that mode\'s order events; at most 10 endpoints per mode (422); ' +
          'a url of an endpoint the operator disabled is refused (409) until the operator enables it.',
        operationId: 'createWebhook',
        security: partnerSecurity,
        body: Body,
        response: {
          201: Type.Ref('WebhookEndpointWithSecret'),
          ...errorResponses(400, 401, 403, 409, 415, 422, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await webhooks.create(callerScope(request), request.body);
      return reply.code(201).send({ ...endpointView(endpoint), secret });
    },
  );
}
