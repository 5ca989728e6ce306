// Where a webhook may be sent. Live-mode endpoints must reach public addresses only: the host
// name is resolved (every address, IPv4 and IPv6) and each address must be public unicast
// (domain/ip-ranges.ts). It is checked when the endpoint is registered and again at every
// delivery, on the very address the socket connects to (a DNS answer that changes later cannot
// smuggle a request into the private network). Sandbox endpoints may point anywhere, localhost
// included, so integrators can test on their own machines — unless the deployment turns that off
// (WEBHOOK_SANDBOX_ALLOW_PRIVATE, off by default in production: there "localhost" would be the
// service's own host, and an attempt's response excerpt would show what answered there).
import { lookup } from 'node:dns';
import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../../domain/ip-ranges.ts';

export type UrlCheck = { ok: true } | { ok: false; code: string; message: string };

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** Syntax and scheme: http(s) only, no credentials in the URL, https in live mode. */
export function checkWebhookUrlSyntax(raw: string, livemode: boolean): UrlCheck {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, code: 'invalid_format', message: 'must be an absolute http(s) URL' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    return { ok: false, code: 'invalid_format', message: 'must be an http or https URL' };
  if (livemode && u.protocol !== 'https:')
    return { ok: false, code: 'https_required', message: 'live-mode endpoints must use https' };
  if (u.username || u.password)
    return { ok: false, code: 'invalid_format', message: 'must not carry credentials' };
  if (u.hash) return { ok: false, code: 'invalid_format', message: 'must not have a #fragment' };
  return { ok: true };
}

/**
 * Resolves the URL's host and refuses it when any address is not public (live mode, or sandbox
 * when private addresses are not allowed there). Otherwise the URL is not resolved. A host that
 * does not resolve is refused when it is resolved.
 */
export async function checkWebhookUrlTarget(
  raw: string,
  livemode: boolean,
  sandboxAllowPrivate = true,
): Promise<UrlCheck> {
  const syntax = checkWebhookUrlSyntax(raw, livemode);
  if (!syntax.ok || (!livemode && sandboxAllowPrivate)) return syntax;
  const host = bare(new URL(raw).hostname);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return { ok: false, code: 'unresolvable_host', message: `the host ${host} does not resolve` };
    }
  }
  const bad = addresses.filter((a) => !isPublicAddress(a));
  if (addresses.length === 0 || bad.length) {
    return {
      ok: false,
      code: 'private_address',
      message: `${livemode ? 'live-mode' : 'sandbox'} endpoints must be on public addresses; ${host} resolves to ${bad.join(', ') || 'nothing'}`,
    };
  }
  return { ok: true };
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which is not a public address`);
    this.name = 'ForbiddenAddressError';
  }
}

/**
 * A `lookup` for http.request that resolves as usual and fails when any address is not public,
 * so the connection is only ever made to a checked address.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(
    hostname,
    { family: options.family, hints: options.hints, all: true, verbatim: true },
    (err, list) => {
      if (err) return callback(err, options.all ? [] : '');
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (bad || list.length === 0) {
        return callback(
          new ForbiddenAddressError(hostname, bad?.address ?? 'nothing'),
          options.all ? [] : '',
        );
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    },
  );
};

/** For a live endpoint whose URL names an IP literal (no lookup happens): is it public? */
export function literalAddressAllowed(raw: string): boolean {
  const host = bare(new URL(raw).hostname);
  return !isIP(host) || isPublicAddress(host);
}
