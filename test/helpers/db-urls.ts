// Where the test databases and Redis live: TEST_DATABASE_URL names the PostgreSQL server and
// TEST_REDIS_URL the Redis server (defaults: the local ones, trust auth), so a machine whose
// servers listen elsewhere runs the suite without editing it.
function base(): URL {
  return new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
}

export function adminUrl(): string {
  const u = base();
  u.pathname = '/postgres';
  return u.toString();
}

export function testDatabaseUrl(name: string): string {
  const u = base();
  u.pathname = `/${name}`;
  return u.toString();
}

/** `factura_t_<run's pid>_`: the names of the databases a run's files clone from `template`. */
export function runDatabasePrefix(template: string): string {
  return `factura_t_${/^factura_tpl_(\d+)$/.exec(template)?.[1] ?? process.pid}_`;
}

/** The shared Redis every test uses (each file under its own queue prefix). */
export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}
