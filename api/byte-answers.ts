// Answers whose body is a document's bytes (the signed XML, Hacienda's answer, the PDF) rather
// than JSON: sent as they are, never through a response schema's serializer.
import type { FastifyReply } from 'fastify';

export function sendBytes(reply: FastifyReply, contentType: string, bytes: Buffer): FastifyReply {
  return reply.type(contentType).send(bytes);
}
