import type { App, Services } from '../../app-types.js';
import { registerListCurrencies } from './currencies.js';
import { registerPartnerAccount } from './partner-account.js';
import { registerRates } from './rates.js';
import { registerCreateOrder } from './orders-create.js';
import { registerGetOrder } from './orders-get.js';
import { registerOrderQr } from './orders-qr.js';
import { registerListOrders } from './orders-list.js';
import { registerValidateAddress } from './addresses-validate.js';
import { registerSandboxDeposit } from './sandbox-deposit.js';
import { registerOrderActions } from './orders-actions.js';
import { registerPartnerStats } from './partner-stats.js';
import { registerCreateWebhook } from './webhooks-create.js';
import { registerDeleteWebhook } from './webhooks-delete.js';
import { registerWebhookDeliveries } from './webhooks-deliveries.js';
import { registerListWebhooks } from './webhooks-list.js';
import { registerRetryWebhookDelivery } from './webhooks-retry.js';
import { registerRotateWebhookSecret } from './webhooks-rotate-secret.js';
import { registerTestWebhook } from './webhooks-test.js';
import { registerUpdateWebhook } from './webhooks-update.js';
import { registerGetPublicOrder } from './public-order-get.js';

/** The partner API under /api/v1, registered explicitly so grep finds every route. */
export function registerV1Routes(app: App, services: Services): void {
  registerListCurrencies(app, services);
  registerPartnerAccount(app, services);
  registerRates(app, services);
  registerCreateOrder(app, services);
  registerGetOrder(app, services);
  registerOrderQr(app, services);
  registerListOrders(app, services);
  registerValidateAddress(app, services);
  registerSandboxDeposit(app, services);
  registerOrderActions(app, services);
  registerPartnerStats(app, services);
  registerCreateWebhook(app, services);
  registerListWebhooks(app, services);
  registerUpdateWebhook(app, services);
  registerDeleteWebhook(app, services);
  registerRotateWebhookSecret(app, services);
  registerTestWebhook(app, services);
  registerWebhookDeliveries(app, services);
  registerRetryWebhookDelivery(app, services);
  registerGetPublicOrder(app, services);
}
