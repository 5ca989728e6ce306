// Pure rules of webhooks and payments: signatures (what integrators verify with), the address
// ranges live endpoints may not reach, the retry schedule, and the payment arithmetic.
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  parseSignatureHeader,
  signWebhookPayload,
  verifyWebhookSignature,
} from '../domain/webhook-signature.ts';
import { embeddedIPv4, isPublicAddress } from '../domain/ip-ranges.ts';
import { nominalSchedule, webhookRetryDelay } from '../domain/webhook-backoff.ts';
import { planPayment } from '../domain/payments.ts';
import { loadConfig } from '../config/index.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';

describe('webhook signatures', () => {
  const secret = generateWebhookSecret();
  const body =
    '{"id":"evt_000000000001","event":"client.created","created_at":"2026-11-22T00:00:00.000Z","data":{}}';
  const t = 1_795_308_404;

  it('secrets are whsec_ and 32 random bytes', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('signs t.<body> with HMAC-SHA256 in the documented header format and verifies it', () => {
    const header = signWebhookPayload(body, [secret], t);
    expect(header).toMatch(/^t=1795308404, v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(body, header, secret, { now: t * 1000 })).toEqual({
      ok: true,
      timestamp: t,
    });
    expect(verifyWebhookSignature(Buffer.from(body), header, [secret], { now: t * 1000 }).ok).toBe(true);
  });

  it('accepts any matching v1 (rotation overlap) and refuses other secrets', () => {
    const other = generateWebhookSecret();
    const header = signWebhookPayload(body, [secret, other], t);
    expect(parseSignatureHeader(header)?.signatures).toHaveLength(2);
    expect(verifyWebhookSignature(body, header, secret, { now: t * 1000 }).ok).toBe(true);
    expect(verifyWebhookSignature(body, header, other, { now: t * 1000 }).ok).toBe(true);
    expect(verifyWebhookSignature(body, header, generateWebhookSecret(), { now: t * 1000 })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects old (and far-future) timestamps, tampered bodies and malformed headers', () => {
    const header = signWebhookPayload(body, [secret], t);
    const at = (s: number) => verifyWebhookSignature(body, header, secret, { now: (t + s) * 1000 });
    expect(at(300).ok).toBe(true);
    expect(at(301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(at(-301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(
      verifyWebhookSignature(body, header, secret, { now: (t + 1000) * 1000, toleranceSeconds: 2000 }).ok,
    ).toBe(true);
    expect(verifyWebhookSignature(body.replace('{}', '{"x":1}'), header, secret, { now: t * 1000 }).ok).toBe(
      false,
    );
    // A signature for another timestamp does not move to this one.
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyWebhookSignature(body, moved, secret, { now: t * 1000 }).ok).toBe(false);
    for (const bad of [undefined, '', 'v1=abc', `t=${t}`, `t=abc, v1=${'0'.repeat(64)}`]) {
      expect(verifyWebhookSignature(body, bad, secret, { now: t * 1000 })).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
  });
});

describe('addresses a live webhook may reach', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:c0a8:101::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    'not-an-ip',
  ])('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));

  // IANA's special-purpose registries: IPv6 blocks that are not globally reachable, and IPv6
  // outside global unicast (2000::/3), even when the address carries a public IPv4 address.
  it.each([
    ['64:ff9b:1::a00:1', 'local-use NAT64 (RFC 8215), private IPv4 inside'],
    ['64:ff9b:1::808:808', 'local-use NAT64, public IPv4 inside: the translator is local'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64, anywhere in the /48'],
    ['::ffff:0:a00:1', 'SIIT IPv4-translated ::ffff:0:0:0/96 (RFC 2765)'],
    ['::ffff:0:808:808', 'SIIT with a public IPv4 inside'],
    ['::ffff:0:7f00:1', 'SIIT with loopback inside'],
    ['2001::1', 'Teredo 2001::/32'],
    ['2001:0:4136:e378:8000:63bf:3f57:fdf2', 'a Teredo client address'],
    ['2001:2::1', 'benchmarking 2001:2::/48'],
    ['2001:10::1', 'ORCHID 2001:10::/28'],
    ['2001:1ff::1', 'IETF protocol assignments 2001::/23'],
    ['2001:db8:1::1', 'documentation 2001:db8::/32'],
    ['3fff:123::1', 'documentation 3fff::/20 (RFC 9637)'],
    ['5f00::1', 'SRv6 SIDs 5f00::/16 (RFC 9602)'],
    ['100::1', 'discard-only 100::/64'],
    ['100:0:0:1::1', 'dummy prefix 100:0:0:1::/64 (RFC 9780)'],
    ['::a00:1', 'IPv4-compatible (deprecated)'],
    ['4000::1', 'unallocated, outside 2000::/3'],
    ['e000::1', 'unallocated, outside 2000::/3'],
    ['fec0::1', 'site-local (deprecated)'],
  ])('refuses %s (%s)', (a) => expect(isPublicAddress(a)).toBe(false));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '[2001:4860::8888]',
    '2001:4860:4860::8888',
    '2001:200::1', // just past 2001::/23
    '2a00:1450:4001::1',
    '64:ff9b::808:808', // the well-known NAT64 prefix, public IPv4 inside
    '2002:808:808::1', // 6to4, public IPv4 inside
  ])('accepts %s', (a) => expect(isPublicAddress(a)).toBe(true));

  it('reads the IPv4 address inside mapped, NAT64 and 6to4 addresses', () => {
    expect(embeddedIPv4('::ffff:192.168.0.1')).toBe('192.168.0.1');
    expect(embeddedIPv4('64:ff9b::0808:0808')).toBe('8.8.8.8');
    expect(embeddedIPv4('2002:0a00:0001::')).toBe('10.0.0.1');
    expect(embeddedIPv4('2606:4700::1')).toBeNull();
  });
});

describe('webhook retry schedule', () => {
  it('production defaults: 12 attempts over about 3 days, 10 s timeout', () => {
    const c = loadConfig({ NODE_ENV: 'production', SECRETS_KEY: TEST_SECRETS_KEY });
    expect(c.webhooks).toMatchObject({ maxAttempts: 12, timeoutMs: 10_000, sandboxAllowPrivate: false });
    expect(loadConfig({ NODE_ENV: 'test', SECRETS_KEY: TEST_SECRETS_KEY }).webhooks.sandboxAllowPrivate).toBe(
      true,
    );
    const total = nominalSchedule(c.webhooks.maxAttempts, c.webhooks.backoffBaseMs).reduce(
      (a, b) => a + b,
      0,
    );
    expect(total / 86_400_000).toBeGreaterThan(2.8);
    expect(total / 86_400_000).toBeLessThan(3.2);
  });

  it('grows on every attempt, whatever the jitter', () => {
    for (const r of [0, 0.5, 0.999999]) {
      for (let n = 1; n < 11; n++) {
        const worstNext = webhookRetryDelay(n + 1, 1000, () => 0);
        expect(worstNext).toBeGreaterThan(webhookRetryDelay(n, 1000, () => r));
      }
    }
    expect(webhookRetryDelay(1, 1000, () => 0)).toBe(800);
    expect(webhookRetryDelay(1, 1000, () => 0.999999)).toBe(1200);
    expect(webhookRetryDelay(3, 1000, () => 0.5)).toBe(4000);
  });

  it('is configurable through the environment, with validation', () => {
    const c = loadConfig({
      NODE_ENV: 'test',
      SECRETS_KEY: TEST_SECRETS_KEY,
      WEBHOOK_BACKOFF_BASE_MS: '50',
      WEBHOOK_MAX_ATTEMPTS: '5',
      WEBHOOK_TIMEOUT_MS: '1500',
    });
    expect(c.webhooks).toMatchObject({ backoffBaseMs: 50, maxAttempts: 5, timeoutMs: 1500 });
    expect(() =>
      loadConfig({ NODE_ENV: 'test', SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_MAX_ATTEMPTS: '0' }),
    ).toThrow(/WEBHOOK_MAX_ATTEMPTS/);
  });
});

describe('payment arithmetic', () => {
  const base = { exchangeRate: '1.00000', receivableCrc: '113.00', paidCrc: '0', status: 'aceptada' };

  it('a partial payment takes its amount off; the settling one clears the sub-centavo remainder', () => {
    const first = planPayment({ ...base, balanceDue: '112.99999', amount: '50.00' });
    expect(first).toEqual({
      ok: true,
      plan: {
        applied: '50.00000',
        amountCrc: '50.00',
        balanceAfter: '62.99999',
        paymentStatus: 'partial',
      },
    });
    const second = planPayment({ ...base, balanceDue: '62.99999', paidCrc: '50.00', amount: '63.00' });
    expect(second).toEqual({
      ok: true,
      plan: { applied: '62.99999', amountCrc: '63.00', balanceAfter: '0.00000', paymentStatus: 'paid' },
    });
  });

  it('books colones in centavos with the exchange rate, the last payment taking exactly what is left', () => {
    const usd = { status: 'enviada', exchangeRate: '512.34567', receivableCrc: '57946.24', paidCrc: '0' };
    const a = planPayment({ ...usd, balanceDue: '113.10000', amount: '33.33' });
    expect(a.ok && a.plan.amountCrc).toBe('17076.48'); // 33.33 × 512.34567 = 17076.4811811
    const b = planPayment({ ...usd, balanceDue: '79.77000', paidCrc: '17076.48', amount: '79.77' });
    expect(b.ok && b.plan).toEqual({
      applied: '79.77000',
      amountCrc: '40869.76',
      balanceAfter: '0.00000',
      paymentStatus: 'paid',
    });
  });

  it('refuses drafts, rejected and paid invoices, and overpayments', () => {
    const refuse = (p: Partial<Parameters<typeof planPayment>[0]>) => {
      const r = planPayment({ ...base, balanceDue: '112.99999', amount: '1.00', ...p });
      return r.ok ? null : r.refusal.code;
    };
    expect(refuse({ status: 'borrador' })).toBe('invoice_not_payable');
    expect(refuse({ status: 'rechazada', balanceDue: '0' })).toBe('invoice_not_payable');
    expect(refuse({ balanceDue: '0.00000' })).toBe('invoice_already_paid');
    expect(refuse({ amount: '113.01' })).toBe('payment_exceeds_balance');
    expect(refuse({ amount: '113.00' })).toBeNull();
    expect(refuse({ status: 'pendiente' })).toBeNull();
  });
});
