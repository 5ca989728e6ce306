// Records the SHA-256 of every migration not yet in db/landed-migrations.json, so a migration,
// once landed, cannot change unseen: `test/migrations-landed.test.ts` compares each listed file
// with its recorded hash. Run after adding a migration: `npm run migrations:seal`. It never
// rewrites an entry that is already there; a changed landed migration is fixed by a new migration.
import { readFileSync, writeFileSync } from 'node:fs';
import { landedManifestPath, migrationHashes, readLandedManifest } from '../db/landed-migrations.ts';

const landed = readLandedManifest();
const added: string[] = [];
for (const [name, hash] of Object.entries(migrationHashes())) {
  if (landed[name]) continue;
  landed[name] = hash;
  added.push(name);
}
const sorted = Object.fromEntries(Object.entries(landed).sort(([a], [b]) => a.localeCompare(b)));
const before = readFileSync(landedManifestPath, 'utf8');
const after = `${JSON.stringify(sorted, null, 2)}\n`;
if (before !== after) writeFileSync(landedManifestPath, after);
console.log(added.length ? `sealed: ${added.join(', ')}` : 'every migration is sealed already');
