import type { App, Services } from '../../app-types.js';
import { registerListCurrencies } from './currencies.js';
import { registerPartnerAccount } from './partner-account.js';
import { registerRates } from './rates.js';

/** The partner API under /api/v1, registered explicitly so grep finds every route. */
export function registerV1Routes(app: App, services: Services): void {
  registerListCurrencies(app, services);
  registerPartnerAccount(app, services);
  registerRates(app, services);
}
