import type { App, Services } from '../../app-types.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../schemas.js';
import { adminSecurity } from './admin-schemas.js';

/**
 * POST /admin/v1/backup: a consistent copy of the embedded store while it serves, as a gzipped
 * tar (`npm run admin -- backup <file>` writes it; `restore` loads it into a stopped DATA_DIR).
 * Only the process that holds a PGlite store can read it consistently, hence a route rather
 * than a file copy (src/db/pglite-backup.ts). On PostgreSQL the database's own tools do it
 * (pg_dump, base backups with WAL archiving: docs/operations.md), so this answers 409. A POST
 * and the admin role: it hands out every partner's data, and each one is an audit entry.
 */
export function registerBackup(app: App, { database }: Services): void {
  app.post(
    '/admin/v1/backup',
    {
      schema: {
        tags: ['admin'],
        summary: 'A consistent backup of the embedded (PGlite) store while it serves, as a gzipped tar',
        security: adminSecurity,
        response: {
          200: {
            description: "the store's data directory as PGlite's dumpDataDir writes it (tar, gzip)",
            content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses(400, 401, 409, 500),
        },
      },
    },
    async (_request, reply) => {
      if (database.backup === undefined) {
        throw new ApiError('conflict', 'the store is PostgreSQL (DATABASE_URL): back it up with pg_dump, or base backups with WAL archiving (docs/operations.md, "Backups, restore and PITR")');
      }
      const dump = Buffer.from(await (await database.backup()).arrayBuffer());
      return reply.type('application/gzip').header('content-disposition', 'attachment; filename="exchange-store.tar.gz"').send(dump);
    },
  );
}
