// Why: people use the service's own application, signed in with a password (and optionally a TOTP
// code) instead of an API key, and act for the companies they are members of with a role
// (domain/roles.ts). Secrets are never stored as given: passwords as argon2id hashes, one-time
// tokens (email confirmation, password reset, invitations) and session ids as their SHA-256, TOTP
// secrets sealed with SECRETS_KEY. Failed sign-ins are counted here so the limits hold in embedded
// mode too (no Redis there).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.bigIncrements('id');
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('locale').notNullable().defaultTo('es-CR');
    t.text('password_hash').notNullable();
    t.timestamp('email_confirmed_at', { useTz: true });
    t.binary('totp_secret'); // sealed; set once confirmed
    t.binary('totp_pending'); // sealed; between POST /account/totp and its confirmation
    t.timestamps(true, true);
  });
  await knex.raw('create unique index users_email_key on users (lower(email))');
  await knex.schema.createTable('user_tokens', (t) => {
    t.bigIncrements('id');
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable().checkIn(['confirm_email', 'password_reset']);
    t.binary('token_hash').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id', 'kind']);
  });
  await knex.schema.createTable('sessions', (t) => {
    t.bigIncrements('id');
    t.binary('token_hash').notNullable().unique();
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('csrf_secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('ip');
    t.text('user_agent');
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id', 'id']);
  });
  await knex.schema.createTable('memberships', (t) => {
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable().checkIn(['owner', 'administrator', 'accountant', 'issuer', 'viewer']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['company_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('invitations', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable().checkIn(['owner', 'administrator', 'accountant', 'issuer', 'viewer']);
    t.binary('token_hash').notNullable().unique();
    t.bigInteger('invited_by').references('users.id').onDelete('SET NULL');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['company_id', 'id']);
  });
  await knex.schema.createTable('sign_in_failures', (t) => {
    t.bigIncrements('id');
    t.text('subject').notNullable(); // 'email:<lower-case address>' or 'ip:<address unit>'
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['subject', 'at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_failures');
  await knex.schema.dropTable('invitations');
  await knex.schema.dropTable('memberships');
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('user_tokens');
  await knex.schema.dropTable('users');
}
