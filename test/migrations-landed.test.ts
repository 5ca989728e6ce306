// Landed migrations never change: each file listed in db/landed-migrations.json still has the
// SHA-256 recorded when it landed, and every migration in the folder is listed (sealed by
// `npm run migrations:seal` in the commit that adds it).
import { describe, expect, it } from 'vitest';
import { migrationHashes, readLandedManifest } from '../db/landed-migrations.ts';

describe('landed migrations', () => {
  const landed = readLandedManifest();
  const now = migrationHashes();

  it('are byte for byte what landed (a change goes in a new migration)', () => {
    const changed = Object.keys(landed).filter((name) => now[name] !== landed[name]);
    expect(changed, 'edited or removed after landing').toEqual([]);
  });

  it('are all sealed (npm run migrations:seal after adding one)', () => {
    expect(Object.keys(now).filter((name) => !landed[name])).toEqual([]);
  });
});
