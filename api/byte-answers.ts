// Answers whose body is a document's bytes (the signed XML, Hacienda's answer, the PDF) rather
// than JSON: sent as they are, never through a response schema's serializer.
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

export function sendBytes(reply: FastifyReply, contentType: string, bytes: Buffer): FastifyReply {
  return reply.type(contentType).send(bytes);
}

/** A body streamed as it is made (the month's ZIP): the stream is piped to the client. */
export function sendStream(reply: FastifyReply, contentType: string, stream: Readable): FastifyReply {
  return reply.type(contentType).send(stream);
}

/** A JSON body made already (rendered objects kept as bytes): sent as it is, never serialised again. */
export function sendJsonBytes(reply: FastifyReply, json: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
