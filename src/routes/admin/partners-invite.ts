import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { EMAIL_PATTERN, normalEmail } from '../../services/account-secrets.js';
import { errorResponses } from '../schemas.js';
import { cabinetLinkBase } from './cabinet-link-base.js';
import { PartnerIdParams, adminSecurity } from './admin-schemas.js';

const Invitation = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'the one-use link that sets the password; send it to the person; shown only in this response' }),
    expires_at: Type.String({ format: 'date-time', description: '72 hours from now' }),
  },
  { additionalProperties: false },
);

/**
 * POST /admin/v1/partners/{id}/invitations (docs/contract.md §9): invites a person of the partner to the
 * cabinet. The link is built on cabinetLinkBase: PUBLIC_URL, or this request's own origin when one
 * listener serves both surfaces; with ADMIN_PORT and no PUBLIC_URL it is refused (409).
 */
export function registerInvitePartnerUser(app: App, { partners, cabinet, config }: Services): void {
  app.post(
    '/admin/v1/partners/:id/invitations',
    {
      schema: {
        tags: ['admin'],
        summary: 'Invite a person of the partner to the cabinet (the link is shown once)',
        security: adminSecurity,
        params: PartnerIdParams,
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 254, pattern: EMAIL_PATTERN.source, description: 'where the person reads the link; it signs in with this email' }) },
          { additionalProperties: false },
        ),
        response: { 201: Invitation, ...errorResponses(400, 401, 404, 409, 415, 500) },
      },
    },
    async (request, reply) => {
      const partner = await partners.existing(request.params.id);
      if (await cabinet.invitations.emailTaken(request.body.email)) throw new ApiError('conflict', 'a cabinet account with this email exists already');
      const base = cabinetLinkBase(config, request);
      const invitation = await cabinet.invitations.invite(partner.id, request.body.email, base);
      // Mailed too (the operator's invitations make owners); the answer still carries the link for
      // an operator who passes it on another way.
      await cabinet.mail.invitation({ to: normalEmail(request.body.email), url: invitation.url, expiresAt: invitation.expiresAt, role: 'owner' });
      // The link is a credential until used: no cache keeps it.
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ url: invitation.url, expires_at: invitation.expiresAt.toISOString() });
    },
  );
}
