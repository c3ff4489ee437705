import { readFileSync } from 'node:fs';
import type { App } from '../../app-types.js';

/** The stylesheet and script, read once at start; cached by browsers for an hour. */
const ASSETS = {
  'cabinet.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/cabinet.css', import.meta.url)) },
  'cabinet.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/cabinet.js', import.meta.url)) },
} as const;

export function registerCabinetAssets(app: App): void {
  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`/cabinet/assets/${name}`, { schema: { hide: true } }, (_request, reply) =>
      reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body),
    );
  }
}
