import { readFileSync } from 'node:fs';
import type { App } from '../../app-types.js';

/** The stylesheet, script and icon, read once at start; cached by browsers for an hour. */
const ASSETS = {
  'cabinet.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/cabinet.css', import.meta.url)) },
  'cabinet.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/cabinet.js', import.meta.url)) },
  // Every page names it (layout.ts), so browsers ask for no /favicon.ico.
  'favicon.svg': { type: 'image/svg+xml', body: readFileSync(new URL('./assets/favicon.svg', import.meta.url)) },
} as const;

export function registerCabinetAssets(app: App): void {
  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`/cabinet/assets/${name}`, { schema: { hide: true } }, (_request, reply) =>
      reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body),
    );
  }
}
