import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { toJson } from '../../json.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { SignedAmount } from './ledger-schemas.js';

/** A USD value to the cent, as a decimal string (`-12.50`). */
const Usd = Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}$' });

const TreasuryLineSchema = Type.Object(
  {
    holdings_ledger: SignedAmount("the ledger's hot_wallet balance"),
    holdings_chain: Type.Union([SignedAmount("the hot wallet's balance on chain, as last read"), Type.Null()], { description: 'null: no chain reading' }),
    drift: Type.Union([SignedAmount('holdings_chain − (holdings_ledger − pending_payouts): 0 when reconciled'), Type.Null()], {
      description: 'null: no chain reading',
    }),
    pending_payouts: SignedAmount('signer payouts and refunds (with their fees) in a signed transaction, not yet posted'),
    commission_owed: SignedAmount('owed to partners'),
    revenue: SignedAmount('what conversions left the exchange with in the asset (credit positive)'),
    usd: Type.Union(
      [
        Type.Object(
          {
            price: Type.String({ description: 'USD per whole unit of the asset (consensus of the price feeds)' }),
            holdings_ledger: Usd,
            holdings_chain: Type.Union([Usd, Type.Null()]),
            pending_payouts: Usd,
            commission_owed: Usd,
            revenue: Usd,
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'the same figures in USD at the current price, to the cent (a valuation, never booked); null without a fresh price' },
    ),
  },
  { additionalProperties: false },
);

/**
 * GET /admin/v1/treasury (docs/contract.md §11.5): per asset, live figures only, what the ledger and the
 * chain say the hot wallet holds, the payouts in flight between them, the drift nothing
 * explains, commission owed and revenue. Read afresh on each request.
 */
export function registerTreasuryGet(app: App, { treasury }: Services): void {
  app.get(
    '/admin/v1/treasury',
    {
      schema: {
        tags: ['admin'],
        summary: 'Treasury per asset: holdings (ledger and chain), drift, payouts in flight, commission owed, revenue; each in USD too',
        security: adminSecurity,
        response: { 200: Type.Record(Type.String({ description: 'the asset' }), TreasuryLineSchema), ...errorResponses(401, 500) },
      },
    },
    async (_request, reply) => sendJsonText(reply, toJson(await treasury.view())),
  );
}
