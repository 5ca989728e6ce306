// Why: to sign and submit, a company needs its signing key and certificate chain (from its
// .p12) and its Hacienda API user, separately for sandbox and production. Secrets are stored
// only as AES-256-GCM ciphertext under a key from the environment; the certificate's public
// facts (subject, expiry) are kept in clear for operators.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('company_credentials', (t) => {
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('company_credentials_company_fk');
    t.boolean('livemode').notNullable();
    t.binary('signing_key_enc');
    t.text('certificate_subject');
    t.timestamp('certificate_not_after', { useTz: true });
    t.text('hacienda_username');
    t.binary('hacienda_password_enc');
    t.timestamps(true, true);
    t.primary(['company_id', 'livemode'], { constraintName: 'company_credentials_pkey' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('company_credentials');
}
