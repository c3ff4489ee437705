import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { endpointView, EventList, WebhookDescription, WebhookUrl } from '../webhook-views.js';
import { errorResponses } from '../schemas.js';
import { callerScope, EndpointParams, partnerSecurity } from './webhooks-shared.js';

const Body = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(EventList),
    description: Type.Optional(WebhookDescription),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false pauses deliveries (they wait); true resumes one the partner or its failures disabled' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** PATCH /api/v1/partner/webhooks/{id} (API key): url, events, description, enabled. */
export function registerUpdateWebhook(app: App, { partnerAuth, webhooks }: Services): void {
  app.patch(
    '/api/v1/partner/webhooks/:id',
    {
      preValidation: partnerAuth.required,
      schema: {
        tags: ['partner'],
        summary: 'Change or re-enable a webhook endpoint',
        description:
          'Only an endpoint of the key\'s mode (the other mode\'s are 404). One the operator disabled can be neither re-enabled nor ' +
          'pointed elsewhere (409), and no endpoint may take the url of one the operator disabled (409).',
        operationId: 'updateWebhook',
        security: partnerSecurity,
        params: EndpointParams,
        body: Body,
        response: { 200: Type.Ref('WebhookEndpoint'), ...errorResponses(400, 401, 403, 404, 409, 415, 429, 500) },
      },
    },
    async (request) => endpointView(await webhooks.update(request.params.id, callerScope(request), request.body)),
  );
}
