import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App, Services } from '../../app-types.js';
import type { Config } from '../../config.js';
import { OPERATOR_ROLES } from '../../domain/operator-roles.js';
import { ApiError } from '../../errors.js';
import { EMAIL_PATTERN } from '../../services/account-secrets.js';
import { errorResponses } from '../schemas.js';
import { STORABLE_TEXT_PATTERN, adminSecurity } from './admin-schemas.js';
import { requestOrigin } from './cabinet-link-base.js';

const Invitation = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: "the person's id" }),
    email: Type.String(),
    role: Type.Union(OPERATOR_ROLES.map((role) => Type.Literal(role))),
    url: Type.String({ format: 'uri', description: 'the one-use link that sets the password (72 h); send it to the person; shown only in this response' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/**
 * Where a console link points: the console is on the operator surface, so with ADMIN_PORT the
 * asking request's own origin (it came through the operator listener, where operators reach
 * the console); with one listener, PUBLIC_URL or the request's origin.
 */
function consoleLinkBase(config: Config, request: FastifyRequest): string {
  if (config.operator.listener === undefined && config.cabinet.publicUrl !== undefined) return config.cabinet.publicUrl;
  return requestOrigin(request);
}

/**
 * POST /admin/v1/operators: invites a person to the operator console with a role; answers the
 * one-use link that sets their password (the first admin is made this way with the bootstrap
 * token: `npm run admin -- operators create --email … --role admin`). Two-factor is enrolled
 * at their first sign-in. A person who has not used their link gets a new one (the old one is
 * void); an email that signs in already is 409.
 */
export function registerCreateOperator(app: App, { operators, config }: Services): void {
  app.post(
    '/admin/v1/operators',
    {
      schema: {
        tags: ['admin'],
        summary: 'Invite a person to the operator console with a role (the link is shown once)',
        security: adminSecurity,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254, pattern: EMAIL_PATTERN.source, description: 'what the person signs in with' }),
            role: Type.Union(OPERATOR_ROLES.map((role) => Type.Literal(role)), { description: 'viewer, support (order actions), finance (payouts, ledger, treasury), admin (everything)' }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: STORABLE_TEXT_PATTERN, description: 'the name shown beside the email' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Invitation, ...errorResponses(400, 401, 409, 415, 500) },
      },
    },
    async (request, reply) => {
      const { email, role, name } = request.body;
      const base = consoleLinkBase(config, request);
      const invited = await operators.people.invite({ email, role, name }, base);
      if (!invited.ok) throw new ApiError('conflict', 'a person with this email signs in to the console already');
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ id: invited.personId, email: email.trim().toLowerCase(), role, url: invited.url, expires_at: invited.expiresAt.toISOString() });
    },
  );
}
