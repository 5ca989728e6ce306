// A client created under an Idempotency-Key, like an invoice or a payment: one transaction takes
// the key (a concurrent request with it → IdempotencyKeyInUse; a finished one with another body
// → IdempotencyKeyReused; the same finished request → its stored answer), inserts the client
// with its event and stores the answer under the key. A refused create (a duplicate
// identification) stores nothing, so the key stays free.
import type { Knex } from 'knex';
import type { Client } from '../models/index.ts';
import { insertClient, withDuplicateCheck, type ClientInput, type Tenant } from './clients.ts';
import {
  insertIdempotent,
  lockIdempotencyKey,
  type IdempotencyInput,
  type StoredResponse,
} from './idempotency.ts';

export type ClientCreateOutcome =
  | { kind: 'created'; client: Client; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse };

export async function createClientOnce(
  db: Knex,
  tenant: Tenant,
  input: ClientInput,
  idem: IdempotencyInput,
  onCreated: (trx: Knex.Transaction, client: Client) => Promise<void>,
  render: (client: Client) => Record<string, unknown>,
): Promise<ClientCreateOutcome> {
  return withDuplicateCheck(db, tenant, input, () =>
    db.transaction(async (trx): Promise<ClientCreateOutcome> => {
      const replay = await lockIdempotencyKey(trx, tenant, idem);
      if (replay) return { kind: 'replay', response: replay };
      const client = await insertClient(trx, tenant, input, onCreated);
      const response = { status: 201, body: render(client) };
      await insertIdempotent(trx, tenant, idem, response);
      return { kind: 'created', client, response };
    }),
  );
}
