import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { EMAIL_PATTERN } from '../../services/account-secrets.js';
import { errorResponses } from '../schemas.js';
import { cabinetLinkBase } from './cabinet-link-base.js';
import { PartnerIdParams, adminSecurity } from './admin-schemas.js';

const PasswordReset = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'the one-use link that sets a new password; send it to the person; shown only in this response' }),
    expires_at: Type.String({ format: 'date-time', description: 'one hour from now' }),
  },
  { additionalProperties: false },
);

/**
 * POST /admin/v1/partners/{id}/password-resets: a password reset link for a person of
 * the partner's cabinet. There is no e-mail sending: like an invitation, the operator passes the
 * link on. One use, one hour; a newer link voids the earlier ones; using it signs out every
 * session of the person and keeps their two-factor enrolment, unless `clear_2fa` is set: then
 * using it clears two-factor too. Issuing and using it are recorded
 * (GET …/account-actions). Built on cabinetLinkBase (PUBLIC_URL;
 * refused with ADMIN_PORT and no PUBLIC_URL).
 */
export function registerPartnerUserPasswordReset(app: App, { partners, cabinet, config }: Services): void {
  app.post(
    '/admin/v1/partners/:id/password-resets',
    {
      schema: {
        tags: ['admin'],
        summary: "Issue a one-use password reset link for a person of the partner's cabinet (shown once)",
        security: adminSecurity,
        params: PartnerIdParams,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254, pattern: EMAIL_PATTERN.source, description: 'the email the person signs in with' }),
            clear_2fa: Type.Optional(
              Type.Boolean({
                default: false,
                description: "using the link also clears the person's two-factor (an authenticator lost, or enrolled by whoever took the account); recorded",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: PasswordReset, ...errorResponses(400, 401, 404, 409, 415, 500) },
      },
    },
    async (request, reply) => {
      const partner = await partners.existing(request.params.id);
      const base = cabinetLinkBase(config, request);
      const reset = await cabinet.passwords.issueReset(partner.id, request.body.email, base, { clearTwoFactor: request.body.clear_2fa === true, ip: request.ip });
      if (reset === undefined) throw new ApiError('not_found', 'this partner has no cabinet account with this email');
      // The link is a credential until used: no cache keeps it.
      return reply.code(201).header('cache-control', 'no-store').send({ url: reset.url, expires_at: reset.expiresAt.toISOString() });
    },
  );
}
