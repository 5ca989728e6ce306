// The path a request is about, for every rule that looks at the URL (which requests the auth
// hooks cover, the cache header of /api answers, a problem's `instance`). Node hands the request
// target over as sent, and HTTP/1.1 servers must accept the absolute form too
// (`POST http://host/api/v1/keys HTTP/1.1`, RFC 9112 §3.2.2): Fastify routes it to the same
// handler as `/api/v1/keys`, so a test on `request.url`'s prefix would let it skip authentication,
// scopes, the rate limit and usage. The matched route's pattern decides when there is one;
// otherwise the target's path with an absolute form's scheme and authority removed.
import type { FastifyRequest } from 'fastify';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** The path of a request target (origin or absolute form), without query or fragment. */
export function targetPath(target: string): string {
  const authority = ABSOLUTE_FORM.exec(target);
  const rest = authority ? target.slice(authority[0].length) : target;
  const path = rest.split(/[?#]/, 1)[0]!;
  return authority && !path.startsWith('/') ? `/${path}` : path;
}

/** The route pattern the request matched, else the path it asked for. */
export function requestPath(request: FastifyRequest): string {
  return request.routeOptions.url ?? targetPath(request.url);
}

/** Under /api/: the authenticated API (unless the route says it is public). */
export function isApiRequest(request: FastifyRequest): boolean {
  return requestPath(request).startsWith('/api/');
}
