import { Type } from '@sinclair/typebox';
import type { App, Services } from '../../app-types.js';
import { sendJsonText } from '../../plugins/json-reply.js';
import { toJson } from '../../json.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';
import { adminCurrencyView } from './currency-view.js';

export function registerAdminListCurrencies(app: App, { catalog }: Services): void {
  app.get(
    '/admin/v1/currencies',
    {
      schema: {
        tags: ['admin'],
        summary: 'The whole catalog, inactive rows and internal columns included',
        security: adminSecurity,
        response: { 200: Type.Array(Type.Ref('AdminCurrency')), ...errorResponses(401, 500) },
      },
    },
    async (_request, reply) =>
      sendJsonText(reply, toJson(catalog.all().map((row) => adminCurrencyView(row, catalog.chainOf(row))))),
  );
}
