import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { App } from '../app-types.js';
import { ApiError } from '../errors.js';
import { errorResponses } from './schemas.js';

/**
 * Coin icons from the maintained `cryptocurrency-icons` package (CC0), plus our own SVGs in
 * assets/icons for coins it lacks (TON). Read into memory once: a dozen small files.
 */
function loadIcons(coins: readonly string[]): Map<string, Buffer> {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve('cryptocurrency-icons/package.json'));
  const ownDir = fileURLToPath(new URL('../../assets/icons/', import.meta.url));
  const own = new Set(readdirSync(ownDir));
  const icons = new Map<string, Buffer>();
  for (const coin of coins) {
    const file = `${coin.toLowerCase()}.svg`;
    const source = own.has(file) ? path.join(ownDir, file) : path.join(packageDir, 'svg', 'color', file);
    try {
      icons.set(file, readFileSync(source));
    } catch {
      // A coin without an icon is served without one; the catalog row can set icon_url null.
    }
  }
  return icons;
}

export function registerStaticIcons(app: App, coins: readonly string[]): void {
  const icons = loadIcons(coins);
  app.get(
    '/static/icons/:file',
    {
      schema: {
        hide: true,
        params: Type.Object({ file: Type.String({ maxLength: 32 }) }),
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', description: 'the SVG image' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const icon = icons.get(request.params.file);
      if (icon === undefined) throw new ApiError('not_found', 'no such icon');
      return reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(icon);
    },
  );
}
