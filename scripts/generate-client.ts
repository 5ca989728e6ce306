// `npm run client:generate`: writes client/src/schema.ts from the OpenAPI document the API
// builds in-process (no server, database or Redis needed). Run it after changing any route schema.
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { CLIENT_SCHEMA_FILE, renderClientSchema } from './client-schema.ts';

const next = await renderClientSchema();
const before = await readFile(CLIENT_SCHEMA_FILE, 'utf8').catch(() => '');
const where = relative(process.cwd(), CLIENT_SCHEMA_FILE);
if (before === next) {
  console.log(`${where} is up to date`);
} else {
  await writeFile(CLIENT_SCHEMA_FILE, next);
  console.log(`wrote ${where} (${next.split('\n').length} lines)`);
}
