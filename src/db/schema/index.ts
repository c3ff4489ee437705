import type { Kysely, Transaction } from 'kysely';
import type { ApiKeyTable, ApiKeyUseTable } from './api-keys.js';
import type { ApiRequestLogTable } from './api-request-log.js';
import type { CabinetAccountActionTable, CabinetInvitationTable, CabinetPasswordResetTable, CabinetRecoveryCodeTable, CabinetRevealTable, CabinetSessionTable, CabinetUserTable } from './cabinet-accounts.js';
import type { ChainTable } from './chains.js';
import type { ChainCursorTable, ChainDepositTable } from './chain-cursors.js';
import type { CurrencyTable } from './currencies.js';
import type { AddressPoolAlertTable, DepositAddressTable, IdempotencyKeyTable } from './deposit-addresses.js';
import type { EvmNonceTable } from './evm-nonces.js';
import type { LedgerEntryTable, LedgerTransactionTable } from './ledger.js';
import type { MailOutboxTable } from './mail-outbox.js';
import type { CabinetSignInDeviceTable } from './cabinet-sign-in-devices.js';
import type { OperatorAuditTable } from './operator-audit.js';
import type { OperatorInvitationTable, OperatorPersonTable, OperatorRecoveryCodeTable, OperatorSessionTable, OperatorTokenTable } from './operator-people.js';
import type { OperatorSecurityKeyTable, OperatorWebauthnChallengeTable } from './operator-security-keys.js';
import type { OrderEventTable, OrderTable } from './orders.js';
import type { OrderSnapshotTable } from './order-snapshots.js';
import type { PartnerTable } from './partners.js';
import type {
  HotWalletBalanceTable,
  HotWalletIndexTable,
  PartnerPayoutAddressTable,
  PayoutTable,
  PayoutTransactionTable,
  SignerChainReadingTable,
  SignerPauseEventTable,
  SignerPauseTable,
  SignerPayoutCheckView,
  SimulatedDepositTable,
  SimulatedSendTable,
  SimulatorFaultTable,
} from './payouts.js';
import type { SignatureNonceTable } from './signature-nonces.js';
import type { StaticPriceTable } from './static-prices.js';
import type { WorkerHeartbeatTable } from './worker-heartbeats.js';
import type { WebhookDeliveryAttemptTable, WebhookDeliveryTable, WebhookEndpointTable, WebhookEventTable } from './webhooks.js';

/** Every table the service owns; one file per table beside this one. */
export interface Database {
  api_request_log: ApiRequestLogTable;
  currencies: CurrencyTable;
  chains: ChainTable;
  partners: PartnerTable;
  api_keys: ApiKeyTable;
  static_prices: StaticPriceTable;
  orders: OrderTable;
  order_events: OrderEventTable;
  order_snapshots: OrderSnapshotTable;
  deposit_addresses: DepositAddressTable;
  address_pool_alerts: AddressPoolAlertTable;
  idempotency_keys: IdempotencyKeyTable;
  payouts: PayoutTable;
  payout_transactions: PayoutTransactionTable;
  hot_wallet_indexes: HotWalletIndexTable;
  evm_nonces: EvmNonceTable;
  signer_payout_checks: SignerPayoutCheckView;
  signer_pauses: SignerPauseTable;
  hot_wallet_balances: HotWalletBalanceTable;
  signer_chain_readings: SignerChainReadingTable;
  operator_audit: OperatorAuditTable;
  operator_people: OperatorPersonTable;
  operator_invitations: OperatorInvitationTable;
  operator_sessions: OperatorSessionTable;
  operator_recovery_codes: OperatorRecoveryCodeTable;
  operator_tokens: OperatorTokenTable;
  operator_security_keys: OperatorSecurityKeyTable;
  operator_webauthn_challenges: OperatorWebauthnChallengeTable;
  signer_pause_events: SignerPauseEventTable;
  simulated_deposits: SimulatedDepositTable;
  simulator_faults: SimulatorFaultTable;
  simulated_sends: SimulatedSendTable;
  chain_cursors: ChainCursorTable;
  chain_deposits: ChainDepositTable;
  signature_nonces: SignatureNonceTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_events: WebhookEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptTable;
  api_key_uses: ApiKeyUseTable;
  cabinet_users: CabinetUserTable;
  cabinet_invitations: CabinetInvitationTable;
  cabinet_sessions: CabinetSessionTable;
  cabinet_recovery_codes: CabinetRecoveryCodeTable;
  cabinet_password_resets: CabinetPasswordResetTable;
  cabinet_reveals: CabinetRevealTable;
  cabinet_account_actions: CabinetAccountActionTable;
  cabinet_sign_in_devices: CabinetSignInDeviceTable;
  worker_heartbeats: WorkerHeartbeatTable;
  ledger_transactions: LedgerTransactionTable;
  ledger_entries: LedgerEntryTable;
  mail_outbox: MailOutboxTable;
  partner_payout_addresses: PartnerPayoutAddressTable;
}

/** Repositories take this as their first argument, so the caller owns the transaction. */
export type Db = Kysely<Database> | Transaction<Database>;
