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
  documentBodyErrors(app);
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

/** Methods whose requests Fastify reads a body of, on any route (GET and HEAD it never reads). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * A body over the limit (413) or of a type no parser reads (415) is answered before any handler,
 * on every route of a method that carries a body (DESIGN §3), so every such route documents
 * both, in one place instead of in each route's list.
 */
function documentBodyErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (response === undefined || ![route.method].flat().some((method) => BODY_METHODS.has(method))) return;
    const added = Object.fromEntries(
      ['413', '415'].filter((status) => response[status] === undefined).map((status) => [status, { $ref: `${errorBodySchema.$id}#` }]),
    );
    // A copy: one schema object may be shared by several routes.
    route.schema = { ...route.schema, response: { ...response, ...added } };
  });
}
