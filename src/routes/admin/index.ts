import type { App, Services } from '../../app-types.js';
import { adminAuthHook } from '../../plugins/admin-auth.js';
import { registerAddressPool } from './address-pool.js';
import { registerAdminListCurrencies } from './currencies-list.js';
import { registerUpdateCurrency } from './currencies-update.js';
import { registerCreateKey } from './keys-create.js';
import { registerListKeys } from './keys-list.js';
import { registerRevokeKey } from './keys-revoke.js';
import { registerCreatePartner } from './partners-create.js';
import { registerGetPartner } from './partners-get.js';
import { registerListPartners } from './partners-list.js';
import { registerListPrices } from './prices-list.js';
import { registerSetPrice } from './prices-set.js';
import { registerSimulator } from './simulator.js';
import { registerAdminOrders } from './orders.js';
import { registerUpdatePartner } from './partners-update.js';

/** The operator API under /admin/v1, all behind the admin token (an encapsulated context). */
export async function registerAdminRoutes(app: App, services: Services): Promise<void> {
  const adminToken = services.config.adminToken;
  if (adminToken === undefined) throw new Error('ADMIN_TOKEN must be resolved before building the app');
  await app.register(async (admin: App) => {
    admin.addHook('onRequest', adminAuthHook(adminToken));
    registerCreatePartner(admin, services);
    registerListPartners(admin, services);
    registerGetPartner(admin, services);
    registerUpdatePartner(admin, services);
    registerCreateKey(admin, services);
    registerListKeys(admin, services);
    registerRevokeKey(admin, services);
    registerAdminListCurrencies(admin, services);
    registerUpdateCurrency(admin, services);
    registerListPrices(admin, services);
    registerSetPrice(admin, services);
    registerAddressPool(admin, services);
    registerSimulator(admin, services);
    registerAdminOrders(admin, services);
  });
}
