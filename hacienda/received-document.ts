// A supplier's signed comprobante, as the receptor reads it before storing it: the root must be a
// v4.4 document a receptor answers (FE 01, ND 02, NC 03, TE 04 with a receptor: the types whose
// descriptor says `answerable`) in its namespace;
// the clave must be well formed (domain/clave.ts) and agree with the NumeroConsecutivo, the emisor's
// identification and the root's document type (Hacienda's Anexos y Estructuras v4.4); the emisor, receptor and ResumenFactura
// totals are read; and the XAdES signature must verify (fast-verify.ts, xadesjs otherwise) with a
// certificate of the emisor, under Hacienda's v4.4 signature policy (signature-policy.ts). Every
// fault is a ReceivedDocumentError naming what is wrong.
import { ClaveError, parseClave } from '../domain/clave.ts';
import { documentTypes } from '../domain/document-types/index.ts';
import { verifySignature } from './fast-verify.ts';
import { signaturePolicyProblem } from './signature-policy.ts';
import { certificateBelongsTo } from './signing-key.ts';
import { XmlDocumentError, parseXmlStrict } from './xades-env.ts';
import { NAMESPACE_BASE } from './xml/document-types.ts';

/** The types a receptor answers with a MensajeReceptor (their descriptors say `answerable`). */
const answerable = () => documentTypes().filter((d) => d.answerable);

export interface ReceivedDocumentData {
  docType: string;
  clave: string;
  consecutivo: string;
  issuedAt: Date;
  emisor: { idType: string; idNumber: string; name: string };
  receptor: { idType: string; idNumber: string };
  currency: string;
  /** TotalImpuesto (0 when absent) and TotalComprobante, as written. */
  totalTax: string;
  total: string;
}

export class ReceivedDocumentError extends Error {
  constructor(
    readonly code: 'invalid_xml' | 'signature_invalid' | 'signature_policy_invalid',
    message: string,
    /** The element at fault (a path of local names), when one is. */
    readonly element: string | null = null,
    /** The reason in English, when `message` is the Spanish one. */
    readonly messageEn: string | null = null,
  ) {
    super(message);
    this.name = 'ReceivedDocumentError';
  }
}

type El = Element;

function childEl(el: El | null, name: string): El | null {
  if (!el) return null;
  for (let n = el.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 1 && (n as El).localName === name) return n as El;
  return null;
}

function textAt(root: El, path: string[], required: true): string;
function textAt(root: El, path: string[], required: false): string | null;
function textAt(root: El, path: string[], required: boolean): string | null {
  let el: El | null = root;
  for (const name of path) el = childEl(el, name);
  const value = el?.textContent?.trim() ?? null;
  if (required && !value)
    throw new ReceivedDocumentError('invalid_xml', `<${path.join('/')}> is missing or empty`, path.join('/'));
  return value || null;
}

const DECIMAL = /^\d{1,13}(\.\d{1,5})?$/;

/** Reads a supplier's comprobante; throws ReceivedDocumentError('invalid_xml') when it is not one. */
export function readReceivedDocument(xml: string): ReceivedDocumentData {
  let root: El;
  try {
    root = parseXmlStrict(xml).documentElement as unknown as El;
  } catch (err) {
    throw new ReceivedDocumentError(
      'invalid_xml',
      err instanceof XmlDocumentError ? err.message : String(err),
    );
  }
  const name = root.localName ?? '';
  const docType = answerable().find((d) => d.xml.root === name)?.code;
  if (!docType)
    throw new ReceivedDocumentError(
      'invalid_xml',
      `<${name}> is not a comprobante a receptor answers (${answerable()
        .map((d) => d.xml.root)
        .join(', ')})`,
      name,
    );
  const namespace = NAMESPACE_BASE + name.charAt(0).toLowerCase() + name.slice(1);
  if (root.namespaceURI !== namespace)
    throw new ReceivedDocumentError('invalid_xml', `<${name}> must be in the namespace ${namespace}`, name);
  const clave = textAt(root, ['Clave'], true);
  const consecutivo = textAt(root, ['NumeroConsecutivo'], true);
  const fecha = textAt(root, ['FechaEmision'], true);
  const issuedAt = new Date(fecha);
  if (Number.isNaN(issuedAt.getTime()))
    throw new ReceivedDocumentError(
      'invalid_xml',
      `<FechaEmision> "${fecha}" is not a date-time`,
      'FechaEmision',
    );
  const emisor = {
    idType: textAt(root, ['Emisor', 'Identificacion', 'Tipo'], true),
    idNumber: textAt(root, ['Emisor', 'Identificacion', 'Numero'], true),
    name: textAt(root, ['Emisor', 'Nombre'], true),
  };
  if (!childEl(root, 'Receptor'))
    throw new ReceivedDocumentError('invalid_xml', 'the document names no receptor', 'Receptor');
  const receptor = {
    idType: textAt(root, ['Receptor', 'Identificacion', 'Tipo'], true),
    idNumber: textAt(root, ['Receptor', 'Identificacion', 'Numero'], true),
  };
  try {
    const parts = parseClave(clave);
    if (parts.consecutivo !== consecutivo)
      throw new ReceivedDocumentError(
        'invalid_xml',
        'the clave does not contain the NumeroConsecutivo',
        'Clave',
      );
    if (parts.emisorId.toUpperCase() !== emisor.idNumber.replace(/^0+/, '').toUpperCase())
      throw new ReceivedDocumentError(
        'invalid_xml',
        "the clave does not contain the emisor's identification",
        'Clave',
      );
    if (parts.consecutivoParts.docType !== docType)
      throw new ReceivedDocumentError(
        'invalid_xml',
        `the clave's document type is not ${docType} (<${name}>)`,
        'Clave',
      );
  } catch (err) {
    if (err instanceof ClaveError)
      throw new ReceivedDocumentError('invalid_xml', `Clave: ${err.message}`, 'Clave');
    throw err;
  }
  const total = textAt(root, ['ResumenFactura', 'TotalComprobante'], true);
  const totalTax = textAt(root, ['ResumenFactura', 'TotalImpuesto'], false) ?? '0';
  for (const [el, v] of [
    ['TotalComprobante', total],
    ['TotalImpuesto', totalTax],
  ] as const)
    if (!DECIMAL.test(v))
      throw new ReceivedDocumentError('invalid_xml', `<ResumenFactura/${el}> "${v}" is not an amount`, el);
  const currency = textAt(root, ['ResumenFactura', 'CodigoTipoMoneda', 'CodigoMoneda'], false) ?? 'CRC';
  return { docType, clave, consecutivo, issuedAt, emisor, receptor, currency, totalTax, total };
}

/**
 * The document's XAdES signature verifies and its certificate is the emisor's; otherwise a
 * ReceivedDocumentError('signature_invalid') with the verifier's reasons. Then its policy is
 * Hacienda's v4.4 one; otherwise ReceivedDocumentError('signature_policy_invalid'), Spanish first.
 */
export async function verifyReceivedSignature(
  xml: string,
  emisor: { idType: string; idNumber: string },
): Promise<void> {
  const v = await verifySignature(xml);
  if (!v.valid)
    throw new ReceivedDocumentError(
      'signature_invalid',
      `The signature does not verify: ${v.errors.join('; ') || 'invalid'}`,
      'Signature',
    );
  if (!v.signingCertificate || !certificateBelongsTo(v.signingCertificate, emisor))
    throw new ReceivedDocumentError(
      'signature_invalid',
      'The document is not signed with a certificate of its emisor',
      'Signature',
    );
  const policy = signaturePolicyProblem(xml);
  if (policy)
    throw new ReceivedDocumentError(
      'signature_policy_invalid',
      policy.es,
      'Signature/Object/QualifyingProperties/SignedProperties/SignedSignatureProperties/SignaturePolicyIdentifier',
      policy.en,
    );
}
