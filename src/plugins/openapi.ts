import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { errorBodySchema } from '../errors.js';

/**
 * OpenAPI 3.1 generated from the route schemas (one source of truth), served at
 * /api/v1/openapi.json, with interactive docs at /docs. Must be registered before the routes.
 */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(errorBodySchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Exchange Partner API',
        version: '1.0.0',
        description:
          'List currencies, get a rate, create an exchange order with a deposit address, and follow it ' +
          'until the payout. Errors are JSON `{"detail", "code"}`. Amounts are exact decimal JSON numbers.',
      },
      tags: [
        { name: 'partner', description: 'The partner API (spec v1)' },
        { name: 'admin', description: "The operator API (Authorization: Bearer <ADMIN_TOKEN>)" },
        { name: 'simulator', description: 'The simulated chain and exchange (operator API)' },
        { name: 'operations', description: 'Health and metrics' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Partner API key <key_id>.<secret>' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Partner API key' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
        },
      },
    },
    refResolver: {
      // Component names are the schemas' $id (Error, Currency, ...), not generated def-N names.
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
