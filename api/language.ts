// The language of an answer's human-readable texts (a rejection's message, a refused document's
// reason): English when the request's Accept-Language starts with `en`, Spanish otherwise.
import type { FastifyRequest } from 'fastify';

export function requestLanguage(request: FastifyRequest): 'es' | 'en' {
  const raw = request.headers['accept-language'];
  const v = (Array.isArray(raw) ? raw[0] : raw) ?? '';
  const first = v.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('en') ? 'en' : 'es';
}
