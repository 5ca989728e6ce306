// The fingerprints of landed migrations (db/landed-migrations.json): a migration that ran on some
// database must never change, or databases migrated before and after the change would differ
// silently. New migrations are added to the list by `npm run migrations:seal`.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const migrationsDir = join(here, 'migrations');
export const landedManifestPath = join(here, 'landed-migrations.json');

/** name → SHA-256 (hex) of every migration file in db/migrations. */
export function migrationHashes(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(migrationsDir)
    .filter((f) => /^\d{14}_[a-z0-9_]+\.ts$/.test(f))
    .sort()) {
    out[name] = createHash('sha256')
      .update(readFileSync(join(migrationsDir, name)))
      .digest('hex');
  }
  return out;
}

export function readLandedManifest(): Record<string, string> {
  return JSON.parse(readFileSync(landedManifestPath, 'utf8')) as Record<string, string>;
}
