// The rules of a MensajeReceptor (the v4.4 XSD of each document type), checked after its schema and its signature
// (signed by the receptor, NumeroCedulaReceptor; checks/inspect.ts): the request carries the
// receptor and a consecutivoReceptor equal to the message's; the clave is a well-formed clave of
// the supplier named in NumeroCedulaEmisor, of a document a receptor answers (01-04); the
// NumeroConsecutivoReceptor's tipo is the Mensaje's (1 → 05, 2 → 06, 3 → 07); the amounts hold
// together (IVA credited ≤ the tax, expense ≤ the total, CondicionImpuesto 01 credits all of the
// tax and 04 none; a rejection credits nothing). When the simulator holds the referenced
// document (sent to the same environment), the message must name its receptor and repeat its
// TotalComprobante and TotalImpuesto, and the document must have been accepted. A referenced
// document the simulator never saw is judged on the message alone (a supplier's document is
// often sent to Hacienda by another system). Hacienda's wordings are not published: these are
// ours, with code -1 like its structural errors.
import { documentTypes, findDocumentType } from '../../domain/document-types/index.ts';
import type { DocumentSummary, Row } from './verdict.ts';
import { text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';

export interface ReceptorRequest {
  clave: string;
  emisor: { tipoIdentificacion: string; numeroIdentificacion: string };
  receptor?: { tipoIdentificacion: string; numeroIdentificacion: string };
  consecutivoReceptor?: string;
}

/** What the simulator knows of the referenced document, when it received it. */
export interface ReferencedDocument {
  state: 'recibido' | 'procesando' | 'aceptado' | 'rechazado' | 'error';
  summary: DocumentSummary | null;
}

export const RECEPTOR_TEXTS = {
  requestReceptor:
    'La solicitud de un mensaje receptor debe indicar el receptor y su consecutivoReceptor, iguales a los del mensaje.',
  requestClave: 'La clave enviada en la solicitud no corresponde con la clave del mensaje receptor.',
  requestEmisor:
    'La identificación del emisor enviada en la solicitud no corresponde con NumeroCedulaEmisor del mensaje receptor.',
  clave:
    'La clave del comprobante referido no tiene el formato requerido o no corresponde a la identificación del emisor (NumeroCedulaEmisor).',
  claveTipo:
    'El comprobante referido no es un tipo de documento que se acepte o rechace con un mensaje receptor.',
  consecutivoTipo:
    'El tipo de documento del NumeroConsecutivoReceptor no corresponde con el Mensaje (1: 05, 2: 06, 3: 07).',
  acreditar: 'MontoTotalImpuestoAcreditar no puede ser mayor que MontoTotalImpuesto.',
  gasto: 'MontoTotalDeGastoAplicable no puede ser mayor que TotalFactura.',
  condicion01: 'Con CondicionImpuesto 01 el impuesto a acreditar debe ser el impuesto total del comprobante.',
  condicion04: 'Con CondicionImpuesto 04 no se acredita impuesto.',
  rechazo: 'Un mensaje de rechazo no acredita impuesto ni aplica gasto.',
  referencedReceptor: 'NumeroCedulaReceptor no corresponde con el receptor del comprobante referido.',
  referencedTotal: 'TotalFactura no corresponde con el TotalComprobante del comprobante referido.',
  referencedTax: 'MontoTotalImpuesto no corresponde con el TotalImpuesto del comprobante referido.',
  referencedState: 'El comprobante referido no fue aceptado por la Administración Tributaria.',
} as const;

/** The type of a Mensaje (1, 2, 3: 05, 06, 07) and whether a type is answered: their descriptors. */
const mensajeTipo = (mensaje: string) => documentTypes().find((d) => d.mensaje === mensaje)?.code;
const answerable = (tipo: string) => findDocumentType(tipo)?.answerable === true;
const idOf = (s: string | null | undefined) => (s ?? '').replace(/^0+/, '').toUpperCase();
/** Decimal text → exact comparable hundred-thousandths (5 decimals), or null. */
function units(s: string | null): bigint | null {
  if (s === null || !/^\d+(\.\d+)?$/.test(s)) return null;
  const [i, f = ''] = s.split('.');
  return BigInt(i!) * 100000n + BigInt((f + '00000').slice(0, 5));
}

export function checkReceptorMessage(
  root: XmlElement,
  request: ReceptorRequest,
  referenced: ReferencedDocument | null,
): Row[] {
  const rows: Row[] = [];
  const add = (message: string) => rows.push({ code: -1, message, line: 0, column: 0 });
  const clave = text(root, 'Clave') ?? '';
  const emisor = text(root, 'NumeroCedulaEmisor') ?? '';
  const receptor = text(root, 'NumeroCedulaReceptor') ?? '';
  const consecutivo = text(root, 'NumeroConsecutivoReceptor') ?? '';
  const mensaje = text(root, 'Mensaje') ?? '';

  // The request against the message.
  if (
    !request.receptor ||
    idOf(request.receptor.numeroIdentificacion) !== idOf(receptor) ||
    request.consecutivoReceptor !== consecutivo
  )
    add(RECEPTOR_TEXTS.requestReceptor);
  if (request.clave !== clave) add(RECEPTOR_TEXTS.requestClave);
  if (idOf(request.emisor.numeroIdentificacion) !== idOf(emisor)) add(RECEPTOR_TEXTS.requestEmisor);

  // The clave of the document answered, and our own consecutivo.
  if (!/^506\d{6}[A-Za-z0-9]{12}\d{29}$/.test(clave) || idOf(clave.slice(9, 21)) !== idOf(emisor))
    add(RECEPTOR_TEXTS.clave);
  else if (!answerable(clave.slice(29, 31))) add(RECEPTOR_TEXTS.claveTipo);
  if (/^\d{20}$/.test(consecutivo) && consecutivo.slice(8, 10) !== mensajeTipo(mensaje))
    add(RECEPTOR_TEXTS.consecutivoTipo);

  // The amounts.
  const tax = units(text(root, 'MontoTotalImpuesto')) ?? 0n;
  const total = units(text(root, 'TotalFactura'));
  const acreditarText = text(root, 'MontoTotalImpuestoAcreditar');
  const gastoText = text(root, 'MontoTotalDeGastoAplicable');
  const acreditar = units(acreditarText) ?? 0n;
  const gasto = units(gastoText) ?? 0n;
  const condicion = text(root, 'CondicionImpuesto');
  if (mensaje === '3' && (acreditar > 0n || gasto > 0n)) add(RECEPTOR_TEXTS.rechazo);
  if (acreditar > tax) add(RECEPTOR_TEXTS.acreditar);
  if (total !== null && gasto > total) add(RECEPTOR_TEXTS.gasto);
  if (condicion === '01' && acreditar !== tax) add(RECEPTOR_TEXTS.condicion01);
  if (condicion === '04' && acreditar > 0n) add(RECEPTOR_TEXTS.condicion04);

  // The referenced document, when the simulator holds it.
  if (referenced) {
    if (referenced.state === 'rechazado' || referenced.state === 'error') add(RECEPTOR_TEXTS.referencedState);
    const s = referenced.summary;
    if (s && referenced.state === 'aceptado') {
      if (s.numeroCedulaReceptor !== null && idOf(s.numeroCedulaReceptor) !== idOf(receptor))
        add(RECEPTOR_TEXTS.referencedReceptor);
      if (units(s.totalFactura) !== total) add(RECEPTOR_TEXTS.referencedTotal);
      if ((units(s.montoTotalImpuesto) ?? 0n) !== tax) add(RECEPTOR_TEXTS.referencedTax);
    }
  }
  return rows;
}
