// `key create|list|roll|revoke`: API keys from the command line. The secret is printed once,
// at creation or roll, and appears nowhere else.
import type { Command } from 'commander';
import type { Knex } from 'knex';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../../db/queries/api-keys.ts';
import { getCompany } from '../../db/queries/companies.ts';
import { companyRateLimit, isScope, SCOPES } from '../../domain/scopes.ts';
import { keyObject } from '../../api/presenters/keys.ts';
import { createRedis } from '../../platform/redis.ts';
import { announceKeyChange } from '../../platform/redis-keys.ts';
import { openStore } from '../../platform/queue-store.ts';
import type { Config } from '../../config/index.ts';
import { CliError, output, parseIdArg, parseMode, withContext } from '../context.ts';

/** Tells running API processes to drop their cached keys (best effort; caches expire anyway). */
async function announce(config: Config): Promise<void> {
  if (config.embedded) {
    // Embedded mode: the announcement is a Postgres NOTIFY (platform/pg-redis.ts).
    const store = openStore(config, 'api');
    await announceKeyChange(store, config.queuePrefix).finally(() => store.disconnect());
    return;
  }
  const redis = createRedis(config.redisUrl, 'api', { retryStrategy: () => null, lazyConnect: true });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await announceKeyChange(redis, config.queuePrefix);
  } catch {
    // Redis unreachable: the caches expire within seconds.
  } finally {
    redis.disconnect();
  }
}

interface KeyCreateOptions {
  company: string;
  scopes: string;
  mode: string;
  name: string;
  rateLimit?: string;
  json?: boolean;
  secretOnly?: boolean;
}

/** The created or rolled key as asked: the secret alone (for `$(…)`), JSON, or text. */
function printKey(
  opts: { json?: boolean; secretOnly?: boolean },
  value: ReturnType<typeof keyObject> & { secret: string },
  text: () => string,
): void {
  if (opts.secretOnly) process.stdout.write(`${value.secret}\n`);
  else output(opts.json, value, text);
}

function checkSecretOnly(opts: { json?: boolean; secretOnly?: boolean }): void {
  if (opts.secretOnly && opts.json) throw new CliError('--secret-only and --json: choose one');
}

export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('API keys');

  key
    .command('create')
    .description('Create an API key (the secret is printed once)')
    .requiredOption('--company <id>', 'company id (cmp_… or number)')
    .requiredOption('--scopes <list>', `comma-separated scopes, or "all" (${SCOPES.join(', ')})`)
    .option('--mode <mode>', 'test (sandbox) or live', 'test')
    .option('--name <name>', 'a name to recognise the key', '')
    .option('--rate-limit <n>', "the key's own requests per second (at most the company's)")
    .option('--json', 'print JSON')
    .option(
      '--secret-only',
      'print only the secret, for scripts: export KEY=$(npm run -s cli -- key create …)',
    )
    .action(async (opts: KeyCreateOptions) => {
      checkSecretOnly(opts);
      const scopes =
        opts.scopes === 'all'
          ? [...SCOPES]
          : opts.scopes
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
      const bad = scopes.filter((s) => !isScope(s));
      if (bad.length || scopes.length === 0) {
        throw new CliError(
          `--scopes: unknown scope(s) ${bad.join(', ') || '(none given)'}; valid: ${SCOPES.join(', ')}`,
        );
      }
      const livemode = parseMode(opts.mode);
      if (opts.rateLimit !== undefined && !/^[1-9]\d{0,6}$/.test(opts.rateLimit))
        throw new CliError('--rate-limit: expected a whole number of requests per second (1 or more)');
      await withContext(async ({ db, config }) => {
        const companyId = parseIdArg('company', opts.company, '--company');
        const company = await getCompany(db, companyId);
        if (!company) throw new CliError(`--company: no company ${opts.company}`);
        const rateLimitPerSecond = opts.rateLimit === undefined ? null : Number(opts.rateLimit);
        const companyLimit = companyRateLimit(company.plan, company.rateLimitPerSecond);
        if (rateLimitPerSecond !== null && rateLimitPerSecond > companyLimit)
          throw new CliError(`--rate-limit: at most ${companyLimit}, the company's limit`);
        const { key: created, secret } = await createApiKey(db, {
          companyId,
          livemode,
          name: opts.name,
          scopes,
          rateLimitPerSecond,
        });
        await announce(config);
        printKey(opts, { ...keyObject(created), secret }, () =>
          [
            `Created ${keyObject(created).id} (${livemode ? 'live' : 'test'})`,
            `Secret (shown once): ${secret}`,
          ].join('\n'),
        );
      });
    });

  key
    .command('list')
    .requiredOption('--company <id>', 'company id')
    .option('--mode <mode>', 'test or live (default: both)')
    .option('--json', 'print JSON')
    .action(async (opts: { company: string; mode?: string; json?: boolean }) => {
      await withContext(async ({ db }) => {
        const companyId = parseIdArg('company', opts.company, '--company');
        const keys = (await listApiKeys(db, companyId, opts.mode ? parseMode(opts.mode) : null)).map(
          keyObject,
        );
        output(
          opts.json,
          keys,
          () =>
            keys
              .map(
                (k) =>
                  `${k.id}  ${k.redacted}  ${k.name}  [${k.scopes.join(',')}]${k.revoked_at ? '  revoked' : ''}`,
              )
              .join('\n') || 'no keys',
        );
      });
    });

  key
    .command('roll')
    .description('Give a key a new secret; older secrets keep working for the grace period')
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--key <id>', 'key id (key_…)')
    .option('--grace <seconds>', 'grace period for the old secret', '86400')
    .option('--json', 'print JSON')
    .option('--secret-only', 'print only the new secret, for scripts')
    .action(
      async (opts: { company: string; key: string; grace: string; json?: boolean; secretOnly?: boolean }) => {
        checkSecretOnly(opts);
        if (!/^\d+$/.test(opts.grace)) throw new CliError('--grace must be a number of seconds');
        await withContext(async ({ db, config }) => {
          const { companyId, id, found } = await namedKey(db, opts);
          if (found.revokedAt) throw new CliError('a revoked key cannot be rolled');
          const secret = await rollApiKey(db, found, Number(opts.grace));
          await announce(config);
          const fresh = (await getApiKey(db, companyId, found.livemode, id))!;
          printKey(
            opts,
            { ...keyObject(fresh), secret },
            () => `Rolled ${opts.key}\nNew secret (shown once): ${secret}`,
          );
        });
      },
    );

  key
    .command('revoke')
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--key <id>', 'key id (key_…)')
    .option('--json', 'print JSON')
    .action(async (opts: { company: string; key: string; json?: boolean }) => {
      await withContext(async ({ db, config }) => {
        const { companyId, id, found } = await namedKey(db, opts);
        await revokeApiKey(db, id);
        await announce(config);
        const fresh = (await getApiKey(db, companyId, found.livemode, id))!;
        output(opts.json, keyObject(fresh), () => `Revoked ${opts.key}`);
      });
    });
}

/** The key `--key` names in the company `--company` names, in either mode, or a CliError. */
async function namedKey(db: Knex, opts: { company: string; key: string }) {
  const companyId = parseIdArg('company', opts.company, '--company');
  const id = parseIdArg('apiKey', opts.key, '--key');
  const found = (await getApiKey(db, companyId, false, id)) ?? (await getApiKey(db, companyId, true, id));
  if (!found) throw new CliError(`--key: no key ${opts.key} in company ${opts.company}`);
  return { companyId, id, found };
}
