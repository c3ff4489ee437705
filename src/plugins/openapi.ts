import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { errorBodySchema } from '../errors.js';
import { isOperatorPath } from '../surfaces.js';

/**
 * OpenAPI 3.1 generated from the route schemas (one source of truth), split by surface: the
 * partner document at /api/v1/openapi.json with interactive docs at /docs, the operator one
 * behind the admin token (see OpenApiDocuments). Must be registered before the routes.
 */
export async function installOpenApi(app: FastifyInstance): Promise<OpenApiDocuments> {
  app.addSchema(errorBodySchema);
  documentBodyErrors(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // Relative: the document is served by the API it describes, whatever its origin (the paths carry /api/v1).
      servers: [{ url: '/', description: 'this server' }],
      info: {
        title: 'Exchange Partner API',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
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
          metricsToken: { type: 'http', scheme: 'bearer', description: 'Prometheus scrape token (METRICS_TOKEN)' },
        },
      },
    },
    refResolver: {
      // Component names are the schemas' $id (Error, Currency, ...), not generated def-N names.
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
  });
  // The docs page and its /docs/json show the partner document only.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No validator badge: it is an image from a third-party host, which the CSP refuses.
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    transformSpecification: () => documents.partner(),
    transformSpecificationClone: false,
  });
  const documents = new OpenApiDocuments(() => app.swagger() as unknown as OpenApiDocument);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, () => documents.partner());
  return documents;
}

interface OpenApiDocument {
  info: Record<string, unknown>;
  paths?: Record<string, unknown>;
  tags?: Array<{ name: string }>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  [key: string]: unknown;
}

/**
 * The generated document split by surface (src/surfaces.ts): the partner document is public
 * (GET /api/v1/openapi.json, /docs), the operator one is served behind the admin token
 * (GET /admin/v1/openapi.json). Each keeps only the paths, tags, component schemas and security
 * schemes its operations use, so the public one names nothing of the operator API (once
 * it listed all 16 admin paths). Built once, on first use (the routes are all registered then).
 */
export class OpenApiDocuments {
  private partnerDocument: OpenApiDocument | undefined;
  private operatorDocument: OpenApiDocument | undefined;

  constructor(private readonly generate: () => OpenApiDocument) {}

  partner(): OpenApiDocument {
    this.partnerDocument ??= subset(this.generate(), (path) => !isOperatorPath(path), {});
    return this.partnerDocument;
  }

  operator(): OpenApiDocument {
    this.operatorDocument ??= subset(this.generate(), isOperatorPath, {
      title: 'Exchange Partner API: operator API',
      description: 'The operator API (Authorization: Bearer <ADMIN_TOKEN>) and the Prometheus metrics. Errors are JSON `{"detail", "code"}`.',
    });
    return this.operatorDocument;
  }
}

interface Operation {
  tags?: string[];
  security?: Array<Record<string, unknown>>;
}

function subset(whole: OpenApiDocument, keep: (path: string) => boolean, info: Record<string, unknown>): OpenApiDocument {
  const paths = Object.fromEntries(Object.entries(whole.paths ?? {}).filter(([path]) => keep(path)));
  const schemas = whole.components?.schemas ?? {};
  // Component schemas reached from the kept paths, following $refs between schemas too.
  const used = new Set<string>();
  const pending = [JSON.stringify(paths)];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name === undefined || used.has(name) || schemas[name] === undefined) continue;
      used.add(name);
      pending.push(JSON.stringify(schemas[name]));
    }
  }
  const operations = Object.values(paths).flatMap((item) => Object.values(item as Record<string, Operation>));
  const tagNames = new Set(operations.flatMap((operation) => operation.tags ?? []));
  const schemeNames = new Set(operations.flatMap((operation) => (operation.security ?? []).flatMap((entry) => Object.keys(entry))));
  const securitySchemes = Object.fromEntries(Object.entries(whole.components?.securitySchemes ?? {}).filter(([name]) => schemeNames.has(name)));
  const tags = (whole.tags ?? []).filter((tag) => tagNames.has(tag.name));
  return {
    ...whole,
    info: { ...whole.info, ...info },
    tags,
    components: { ...whole.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))), securitySchemes },
    paths,
  };
}

/** Methods whose requests Fastify reads a body of, on any route (GET and HEAD it never reads). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * A body over the limit (413) or of a type no parser reads (415) is answered before any handler,
 * on every route of a method that carries a body (docs/contract.md §3), so every such route documents
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
