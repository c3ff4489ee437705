import type { App, Services } from '../../app-types.js';
import { adminAuthHook, documentAdminAuthErrors } from '../../plugins/admin-auth.js';
import { registerAddressPoolsGet } from './address-pools-get.js';
import { registerAddressPoolsLoad } from './address-pools-load.js';
import { registerAddressesResync } from './addresses-resync.js';
import { registerAdminListCurrencies } from './currencies-list.js';
import { registerBackup } from './backup.js';
import { registerAuditList } from './audit-list.js';
import { registerCreateCurrency } from './currencies-create.js';
import { installOperatorAudit } from './operator-audit.js';
import { resolveOrderRefs } from './order-ref.js';
import { registerCreateOperator } from './operators-create.js';
import { installRouteRoles } from './route-roles.js';
import { registerUpdateCurrency } from './currencies-update.js';
import { registerCreateKey } from './keys-create.js';
import { registerListKeys } from './keys-list.js';
import { registerRevokeKey } from './keys-revoke.js';
import { registerCreatePartner } from './partners-create.js';
import { registerGetPartner } from './partners-get.js';
import { registerInvitePartnerUser } from './partners-invite.js';
import { registerPartnerUserPasswordReset } from './partners-password-reset.js';
import { registerListAccountActions } from './partners-account-actions.js';
import { registerClearPersonTwoFactor } from './partners-people-clear-2fa.js';
import { registerEndPersonSessions } from './partners-people-end-sessions.js';
import { registerListPartnerPeople } from './partners-people-list.js';
import { registerRemovePartnerPerson } from './partners-people-remove.js';
import { registerListPartners } from './partners-list.js';
import { registerListPrices } from './prices-list.js';
import { registerSetPrice } from './prices-set.js';
import { registerSimulatorConfirmationsSet } from './simulator-confirmations-set.js';
import { registerSimulatorDepositDrop } from './simulator-deposit-drop.js';
import { registerSimulatorDepositSend } from './simulator-deposit-send.js';
import { registerSimulatorFaultsInject } from './simulator-faults-inject.js';
import { registerAdminFailOrder } from './orders-fail.js';
import { registerAdminOrderActions } from './orders-actions.js';
import { registerAdminResumeOrder } from './orders-resume.js';
import { registerAddressPoolsAlert } from './address-pools-alert.js';
import { registerCommissionsReport } from './commissions-report.js';
import { registerCommissionsPayouts } from './commissions-payouts.js';
import { registerLedgerEntries } from './ledger-entries.js';
import { registerLedgerTrialBalance } from './ledger-trial-balance.js';
import { registerLedgerTransfers } from './ledger-transfers.js';
import { registerTreasuryGet } from './treasury-get.js';
import { registerAdminGetOrder } from './orders-get.js';
import { registerAdminListOrders } from './orders-list.js';
import { registerUpdatePartner } from './partners-update.js';
import { registerAdminHealth } from './health-get.js';
import { registerAdminPayouts } from './payouts.js';
import { registerSignerBrakes } from './signer-brakes.js';
import { registerAdminListWebhooks } from './webhooks-list.js';
import { registerAdminSwitchWebhook } from './webhooks-switch.js';
import { registerAdminWebhookDeliveries } from './webhooks-deliveries.js';
import type { OpenApiDocuments } from '../../plugins/openapi.js';
import { errorResponses } from '../schemas.js';

/**
 * The operator API under /admin/v1, all behind the admin token (an encapsulated context): one
 * file per endpoint, registered here explicitly; schemas and views they share are in admin-schemas.ts.
 */
export async function registerAdminRoutes(app: App, services: Services, documents: OpenApiDocuments): Promise<void> {
  const adminToken = services.config.adminToken;
  if (adminToken === undefined) throw new Error('ADMIN_TOKEN must be resolved before building the app');
  await app.register(async (admin: App) => {
    admin.addHook('onRequest', adminAuthHook(adminToken, services.adminAuthAttempts, (presented) => services.operators.people.authenticateToken(presented)));
    documentAdminAuthErrors(admin);
    installRouteRoles(admin);
    admin.addHook('preValidation', resolveOrderRefs(services.orderLookup));
    installOperatorAudit(admin, services.operatorAudit);
    registerAuditList(admin, services);
    registerCreateOperator(admin, services);
    registerCreatePartner(admin, services);
    registerListPartners(admin, services);
    registerGetPartner(admin, services);
    registerUpdatePartner(admin, services);
    registerInvitePartnerUser(admin, services);
    registerPartnerUserPasswordReset(admin, services);
    registerListPartnerPeople(admin, services);
    registerClearPersonTwoFactor(admin, services);
    registerEndPersonSessions(admin, services);
    registerRemovePartnerPerson(admin, services);
    registerListAccountActions(admin, services);
    registerCreateKey(admin, services);
    registerListKeys(admin, services);
    registerRevokeKey(admin, services);
    registerAdminListCurrencies(admin, services);
    registerCreateCurrency(admin, services);
    registerUpdateCurrency(admin, services);
    registerListPrices(admin, services);
    registerSetPrice(admin, services);
    registerAddressPoolsGet(admin, services);
    registerAddressPoolsLoad(admin, services);
    registerAddressPoolsAlert(admin, services);
    registerAddressesResync(admin, services);
    registerBackup(admin, services);
    registerSimulatorDepositSend(admin, services);
    registerSimulatorConfirmationsSet(admin, services);
    registerSimulatorDepositDrop(admin, services);
    registerSimulatorFaultsInject(admin, services);
    registerAdminListOrders(admin, services);
    registerAdminGetOrder(admin, services);
    registerAdminFailOrder(admin, services);
    registerAdminOrderActions(admin, services);
    registerAdminResumeOrder(admin, services);
    registerCommissionsReport(admin, services);
    registerCommissionsPayouts(admin, services);
    registerLedgerTrialBalance(admin, services);
    registerLedgerEntries(admin, services);
    registerLedgerTransfers(admin, services);
    registerTreasuryGet(admin, services);
    registerAdminHealth(admin, services);
    registerAdminPayouts(admin, services);
    registerSignerBrakes(admin, services);
    registerAdminListWebhooks(admin, services);
    registerAdminSwitchWebhook(admin, services);
    registerAdminWebhookDeliveries(admin, services);
    // The operator API's own OpenAPI document (the public one holds the partner API only).
    admin.get(
      '/admin/v1/openapi.json',
      { schema: { hide: true, response: { 200: { type: 'object', additionalProperties: true }, ...errorResponses(401, 429, 500) } } },
      () => documents.operator(),
    );
  });
}
