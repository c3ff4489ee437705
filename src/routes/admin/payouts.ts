import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import type { PayoutRow, PayoutStatus } from '../../db/schema/payouts.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity, STORABLE_TEXT_PATTERN } from './admin-schemas.js';

const STATUSES: readonly PayoutStatus[] = ['requested', 'awaiting_approval', 'signed', 'broadcast', 'confirmed', 'sent', 'failed'];
const Params = Type.Object({ id: Type.String({ format: 'uuid', description: 'the payout id' }) });
/** Who acts, until operator people have their own tokens (docs/contract.md §12): recorded as given. */
export const Actor = Type.String({ minLength: 1, maxLength: 100, pattern: STORABLE_TEXT_PATTERN, description: 'who does it (recorded)' });

/** A payout or refund as the operator sees it (amounts exact, as strings). */
function payoutView(row: PayoutRow): Record<string, unknown> {
  return {
    id: row.id,
    order_id: row.order_id,
    kind: row.kind,
    payer: row.payer,
    chain: row.chain,
    address: row.address,
    tag: row.tag,
    amount: row.amount,
    status: row.status,
    status_reason: row.status_reason,
    failure_reason: row.failure_reason,
    txid: row.txid,
    fee: row.fee,
    approved_by: row.approved_by,
    approved_at: row.approved_at,
    created_at: row.created_at,
    signed_at: row.signed_at,
    confirmed_at: row.confirmed_at,
  };
}

/**
 * GET /admin/v1/payouts and POST /admin/v1/payouts/{id}/approve (docs/contract.md §11.3): the operator
 * finds the payouts waiting for an approval (above SIGNER_APPROVAL_ABOVE_<ASSET>) and approves
 * one, recorded with who and when; the signer then pays it at its next batch (still within its
 * maxima: an approval never passes them).
 */
export function registerAdminPayouts(app: App, { payoutOperations }: Services): void {
  app.get(
    '/admin/v1/payouts',
    {
      schema: {
        tags: ['admin'],
        summary: 'Payouts and refunds, newest first, by status and chain',
        security: adminSecurity,
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Union(STATUSES.map((status) => Type.Literal(status)))),
            chain: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,12}$' })),
            limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(Type.Object({}, { additionalProperties: true })), ...errorResponses(400, 401, 500) },
      },
    },
    async (request, reply) => {
      const rows = await payoutOperations.list(request.query);
      return sendJsonText(reply, toJson(rows.map(payoutView)));
    },
  );

  app.post(
    '/admin/v1/payouts/:id/approve',
    {
      schema: {
        tags: ['admin'],
        summary: 'Approve a payout waiting above the approval threshold (who is recorded)',
        security: adminSecurity,
        params: Params,
        body: Type.Object({ by: Actor }, { additionalProperties: false }),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errorResponses(400, 401, 404, 409, 415, 500) },
      },
    },
    async (request, reply) => {
      return sendJsonText(reply, toJson(payoutView(await payoutOperations.approve(request.params.id, request.body.by))));
    },
  );
}
