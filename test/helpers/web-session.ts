// People in browser tests of the application: a confirmed person with a role in a company
// (written straight to the database, as an accepted invitation would), and a browser context
// signed in as them (POST /api/v1/session, its cookie handed to the context).
import type { Knex } from 'knex';
import type { Browser, BrowserContext } from 'playwright-core';
import { hashPassword } from '../../api/passwords.ts';
import { addMembership } from '../../db/queries/memberships.ts';
import { createUser } from '../../db/queries/users.ts';
import type { Role } from '../../domain/roles.ts';

export interface TestPerson {
  id: number;
  email: string;
  password: string;
}

let n = 0;

export async function createTestPerson(
  db: Knex,
  companyId: number,
  role: Role,
  name = 'Ana Mora',
): Promise<TestPerson> {
  const email = `persona${Date.now()}${++n}@prueba.example`;
  const password = 'cafe-de-altura-2026';
  const user = await createUser(db, {
    email,
    name,
    locale: 'es-CR',
    passwordHash: await hashPassword(password),
    confirmed: true,
  });
  await addMembership(db, companyId, user.id, role);
  return { id: user.id, email, password };
}

/** A new browser context signed in as `person` on `baseUrl`. */
export async function signedInContext(
  browser: Browser,
  baseUrl: string,
  person: TestPerson,
  viewport = { width: 1200, height: 1000 },
): Promise<BrowserContext> {
  const res = await fetch(`${baseUrl}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: person.email, password: person.password }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = /factura_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('no session cookie');
  const context = await browser.newContext({ viewport, locale: 'es-CR' });
  await context.addCookies([{ name: 'factura_session', value: cookie, url: baseUrl }]);
  return context;
}
