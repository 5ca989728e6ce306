// Response serializers are built on a route's first answer (api/lazy-serializers.ts): an app is
// ready without writing them, answers the same bytes before and after they are all built, and
// warmSerializers() builds each one once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { lazySerializers } from '../api/lazy-serializers.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  const { id: companyId } = await createTestCompany(t.db);
  key = (await createTestKey(t.db, companyId)).secret;
});
afterAll(async () => {
  await t?.close();
});

describe('response serializers built on first use', () => {
  it('answer the same bytes before and after every serializer is built, each built once', async () => {
    const created = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '102340567', name: 'José Ángel Pérez Núñez', email: 'jose@example.cr' },
    });
    expect(created.statusCode).toBe(201);
    const url = `/api/v1/clients/${created.json().id}`;
    const before = await call(t.app, 'GET', url, { key });
    expect(before.statusCode).toBe(200);
    // Nullable fields (anyOf with null) are written as null, as the schema says.
    expect(before.json()).toMatchObject({ object: 'client', name: 'José Ángel Pérez Núñez' });

    const built = await t.app.warmSerializers();
    // Every route's statuses: hundreds, less the few the requests above already needed.
    expect(built).toBeGreaterThan(100);
    expect(await t.app.warmSerializers()).toBe(0);

    const after = await call(t.app, 'GET', url, { key });
    expect(after.payload).toBe(before.payload);
    // A field the response schema does not name is still left out.
    expect(Object.keys(after.json())).toEqual(Object.keys(before.json()));
  });

  it('builds a serializer only when it is first called, with fast-json-stringify', () => {
    const lazy = lazySerializers();
    const compile = lazy.buildSerializer(undefined, {});
    const serialize = compile({
      method: 'GET',
      url: '/x',
      httpStatus: '200',
      schema: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
      },
    });
    expect(lazy.pending()).toBe(1);
    expect(serialize({ a: 'á"', b: null, secret: 'x' })).toBe('{"a":"á\\"","b":null}');
    expect(lazy.pending()).toBe(0);
    expect(serialize({ a: 'z', b: 3 })).toBe('{"a":"z","b":3}');
  });
});
