import type { Migration } from 'kysely';
import * as m0001 from './0001-catalog-partners-keys.js';
import * as m0002 from './0002-currency-catalog.js';
import * as m0003 from './0003-prices-and-fixed-quotes.js';
import * as m0004 from './0004-orders.js';
import * as m0005 from './0005-lifecycle.js';
import * as m0006 from './0006-chain-cursors.js';
import * as m0007 from './0007-order-event-version.js';
import * as m0008 from './0008-fixed-quote-amount-to.js';
import * as m0009 from './0009-partner-order-list.js';
import * as m0010 from './0010-partner-open-order-cap.js';
import * as m0012 from './0012-order-deposit-uri.js';
import * as m0013 from './0013-signature-nonces.js';
import * as m0014 from './0014-sandbox.js';
import * as m0015 from './0015-order-actions.js';
import * as m0016 from './0016-partner-commission.js';
import * as m0017 from './0017-webhooks.js';
import * as m0019 from './0019-stateless-fixed-quotes.js';
import * as m0020 from './0020-create-partner-order.js';
import * as m0022 from './0022-cabinet-accounts.js';
import * as m0023 from './0023-api-key-label-last-used.js';
import * as m0024 from './0024-api-key-uses.js';
import * as m0025 from './0025-webhook-delivery-attempts.js';
import * as m0026 from './0026-sandbox-addresses.js';
import * as m0027 from './0027-cabinet-sessions-and-resets.js';
import * as m0028 from './0028-create-partner-order-outbox.js';
import * as m0029 from './0029-sandbox-open-order-cap.js';
import * as m0032 from './0032-cabinet-reveals.js';
import * as m0033 from './0033-order-markup.js';
import * as m0034 from './0034-order-final-amounts.js';
import * as m0035 from './0035-modes.js';
import * as m0039 from './0039-cabinet-operator-actions.js';
import * as m0041 from './0041-worker-heartbeats.js';
import * as m0043 from './0043-idempotency-key-completed-once.js';
import * as m0045 from './0045-chain-facts.js';
import * as m0046 from './0046-order-network-fee-eta.js';
import * as m0047 from './0047-order-metadata.js';
import * as m0049 from './0049-client-keys.js';
import * as m0050 from './0050-order-status-tokens.js';
import * as m0051 from './0051-payout-signing.js';
import * as m0052 from './0052-evm-nonces.js';
import * as m0053 from './0053-signer-pauses.js';
import * as m0054 from './0054-hot-wallet-balances.js';
import * as m0055 from './0055-order-snapshots.js';
import * as m0056 from './0056-ledger.js';
import * as m0057 from './0057-ledger-opening.js';
import * as m0061 from './0061-operator-audit.js';
import * as m0062 from './0062-operator-people.js';
import * as m0063 from './0063-mail-outbox.js';
import * as m0064 from './0064-cabinet-roles.js';
import * as m0065 from './0065-api-request-log.js';
import * as m0066 from './0066-commission-payouts.js';
import * as m0067 from './0067-order-search-indexes.js';
import * as m0068 from './0068-trace-context.js';
import * as m0072 from './0072-cabinet-sign-in-devices.js';
import * as m0073 from './0073-webhook-attempt-responses.js';
import * as m0074 from './0074-address-pool-alerts.js';
import * as m0075 from './0075-operator-security-keys.js';

/** Listed explicitly (no directory scan): the order is the names' order. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-catalog-partners-keys': m0001,
  '0002-currency-catalog': m0002,
  '0003-prices-and-fixed-quotes': m0003,
  '0004-orders': m0004,
  '0005-lifecycle': m0005,
  '0006-chain-cursors': m0006,
  '0007-order-event-version': m0007,
  '0008-fixed-quote-amount-to': m0008,
  '0009-partner-order-list': m0009,
  '0010-partner-open-order-cap': m0010,
  '0012-order-deposit-uri': m0012,
  '0013-signature-nonces': m0013,
  '0014-sandbox': m0014,
  '0015-order-actions': m0015,
  '0016-partner-commission': m0016,
  '0017-webhooks': m0017,
  '0019-stateless-fixed-quotes': m0019,
  '0020-create-partner-order': m0020,
  '0022-cabinet-accounts': m0022,
  '0023-api-key-label-last-used': m0023,
  '0024-api-key-uses': m0024,
  '0025-webhook-delivery-attempts': m0025,
  '0026-sandbox-addresses': m0026,
  '0027-cabinet-sessions-and-resets': m0027,
  '0028-create-partner-order-outbox': m0028,
  '0029-sandbox-open-order-cap': m0029,
  '0032-cabinet-reveals': m0032,
  '0033-order-markup': m0033,
  '0034-order-final-amounts': m0034,
  '0035-modes': m0035,
  '0039-cabinet-operator-actions': m0039,
  '0041-worker-heartbeats': m0041,
  '0043-idempotency-key-completed-once': m0043,
  '0045-chain-facts': m0045,
  '0046-order-network-fee-eta': m0046,
  '0047-order-metadata': m0047,
  '0049-client-keys': m0049,
  '0050-order-status-tokens': m0050,
  '0051-payout-signing': m0051,
  '0052-evm-nonces': m0052,
  '0053-signer-pauses': m0053,
  '0054-hot-wallet-balances': m0054,
  '0055-order-snapshots': m0055,
  '0056-ledger': m0056,
  '0057-ledger-opening': m0057,
  '0061-operator-audit': m0061,
  '0062-operator-people': m0062,
  '0063-mail-outbox': m0063,
  '0064-cabinet-roles': m0064,
  '0065-api-request-log': m0065,
  '0066-commission-payouts': m0066,
  '0067-order-search-indexes': m0067,
  '0068-trace-context': m0068,
  '0072-cabinet-sign-in-devices': m0072,
  '0073-webhook-attempt-responses': m0073,
  '0074-address-pool-alerts': m0074,
  '0075-operator-security-keys': m0075,
};
