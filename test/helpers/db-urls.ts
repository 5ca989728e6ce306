// Where the test databases live: TEST_DATABASE_URL names the server (default: local trust auth).
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
