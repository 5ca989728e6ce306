// POST /api/v1/received_documents: a supplier's signed comprobante addressed to the company, sent
// as the XML itself (application/xml, text/xml) or as JSON `{ xml_base64 }`. Read and checked
// (hacienda/received-document.ts): a readable FE/ND/NC/TE whose clave agrees with it (422
// invalid_xml), addressed to this company (422 receptor_mismatch), signed by its emisor with a
// signature that verifies (422 signature_invalid) under Hacienda's v4.4 signature policy (422
// signature_policy_invalid, the reason in Spanish or, with Accept-Language: en, English); then
// stored once per clave with
// `received_document.created`. The same bytes again answer 200 with the stored document
// (Idempotent-Replayed: true); other bytes under a stored clave are 409 received_document_exists.
// Nothing is written unless every check passed.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getCompany } from '../../../db/queries/companies.ts';
import type { Company } from '../../../db/models/index.ts';
import { storeReceivedDocument } from '../../../db/queries/received-documents.ts';
import { receivedDocumentObject } from '../../../db/received-document-object.ts';
import {
  ReceivedDocumentError,
  readReceivedDocument,
  verifyReceivedSignature,
} from '../../../hacienda/received-document.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { errorResponses } from '../../schemas/common.ts';
import { CreateReceivedDocumentBody, ReceivedDocumentObject } from '../../schemas/received-documents.ts';
import type { AppDeps } from '../../deps.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const sameId = (a: string, b: string) =>
  a.replace(/^0+/, '').toUpperCase() === b.replace(/^0+/, '').toUpperCase();

/** Reasons given in Spanish and English are answered in the request's language (Spanish first). */
function refused(err: ReceivedDocumentError, lang: 'es' | 'en'): ApiError {
  const message = lang === 'en' && err.messageEn ? err.messageEn : err.message;
  return new ApiError(err.code, message, {
    errors: [{ path: '/xml_base64', code: err.code, message }],
  });
}

/** The bytes of `xml_base64` (whitespace ignored); 422 when it is not base64. */
function decodeBase64(given: string): Buffer {
  const b64 = given.replace(/\s+/g, '');
  if (!BASE64.test(b64) || b64.length % 4 !== 0)
    throw new ApiError('validation_failed', 'xml_base64 is not base64', {
      errors: [{ path: '/xml_base64', code: 'invalid_format', message: 'must be base64' }],
    });
  return Buffer.from(b64, 'base64');
}

/** What the document says, checked: addressed to the company (read once the XML is), signed by its emisor. */
async function checkDocument(xml: string, loadCompany: () => Promise<Company>, lang: 'es' | 'en') {
  let data;
  try {
    data = readReceivedDocument(xml);
  } catch (err) {
    if (err instanceof ReceivedDocumentError) throw refused(err, lang);
    throw err;
  }
  const company = await loadCompany();
  if (data.receptor.idType !== company.idType || !sameId(data.receptor.idNumber, company.idNumber))
    throw new ApiError(
      'receptor_mismatch',
      `The document is addressed to ${data.receptor.idType} ${data.receptor.idNumber}, not to this company (${company.idType} ${company.idNumber})`,
      {
        errors: [
          {
            path: '/xml_base64',
            code: 'receptor_mismatch',
            message: 'Receptor/Identificacion is not this company',
          },
        ],
      },
    );
  try {
    await verifyReceivedSignature(xml, data.emisor);
  } catch (err) {
    if (err instanceof ReceivedDocumentError) throw refused(err, lang);
    throw err;
  }
  return data;
}

export default async function createReceivedDocumentRoute(
  fastify: FastifyInstance,
  { db }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The XML itself, for these routes only (the rest of the API speaks JSON).
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, { xml_base64: (body as Buffer).toString('base64') }),
  );

  app.post(
    '/api/v1/received_documents',
    {
      config: { scope: 'write:invoices' },
      schema: {
        tags: ['received documents'],
        summary: "Store a supplier's signed document addressed to the company",
        description:
          'The signed XML as sent by the supplier: the body itself (`Content-Type: application/xml`) or JSON ' +
          '`{ "xml_base64": … }`. The signature must verify with a certificate of the emisor, the clave must ' +
          "agree with the document and the receptor must be this company. The signature's policy must be " +
          "Hacienda's v4.4 one with its SHA-256 digest (`signature_policy_invalid`). The same bytes again: 200 with the " +
          'stored document.',
        body: CreateReceivedDocumentBody,
        response: {
          201: ReceivedDocumentObject,
          200: ReceivedDocumentObject,
          ...errorResponses(409, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const bytes = decodeBase64(request.body.xml_base64);
      const xml = bytes.toString('utf8');
      const company = async () => (await getCompany(db, auth.companyId))!;
      const data = await checkDocument(xml, company, requestLanguage(request));
      // Stored once per clave.
      const stored = await storeReceivedDocument(
        db,
        auth,
        { ...data, signedXml: bytes },
        receivedDocumentObject,
        request.id,
      );
      const object = receivedDocumentObject(stored.row);
      if (!stored.created && !stored.sameBytes)
        throw new ApiError(
          'received_document_exists',
          `A different document with clave ${data.clave} was already received (${object.id})`,
          { fields: { existing_received_document_id: object.id } },
        );
      reply.header('location', `/api/v1/received_documents/${object.id}`);
      if (!stored.created) return reply.code(200).header('idempotent-replayed', 'true').send(object);
      return reply.code(201).send(object);
    },
  );
}
