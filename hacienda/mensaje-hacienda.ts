// MensajeHacienda parsing: Hacienda's signed answer (respuesta-xml) to a submitted document.
// Matched by local name so v4.2/v4.3/v4.4 namespaces all parse; the signature is not checked here
// (the answer came over TLS from Hacienda; keep the XML byte-exact for anyone who wants to verify).
// Layout (Hacienda's reception API): Clave, NombreEmisor, TipoIdentificacionEmisor, NumeroCedulaEmisor,
// NombreReceptor?, TipoIdentificacionReceptor?, NumeroCedulaReceptor?, Mensaje (1|3),
// EstadoMensaje (v4.4), DetalleMensaje, MontoTotalImpuesto?, TotalFactura, ds:Signature.
import { parseXmlTree, XmlTreeError } from './xml-tree.ts';
import type { XmlElement } from './xml-tree.ts';
import { parseDetalleMensaje } from './detalle-mensaje.ts';
import type { ParsedDetalle } from './detalle-mensaje.ts';

export interface MensajeHacienda {
  clave: string;
  nombreEmisor: string | null;
  tipoIdentificacionEmisor: string | null;
  numeroCedulaEmisor: string | null;
  nombreReceptor: string | null;
  tipoIdentificacionReceptor: string | null;
  numeroCedulaReceptor: string | null;
  /** 1 aceptado, 3 rechazado (2 only ever appears in MensajeReceptor). */
  mensaje: number;
  accepted: boolean;
  /** v4.4 only ("Aceptado" / "Rechazado"). */
  estadoMensaje: string | null;
  /** The raw DetalleMensaje text, untouched. */
  detalleMensaje: string;
  detalle: ParsedDetalle;
  /** Decimal strings as Hacienda wrote them. */
  montoTotalImpuesto: string | null;
  totalFactura: string | null;
  /** Whether the answer carries a ds:Signature element. */
  signed: boolean;
}

export class MensajeHaciendaParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MensajeHaciendaParseError';
  }
}

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

/** Parses a MensajeHacienda XML string. Throws MensajeHaciendaParseError when it is not one. */
export function parseMensajeHacienda(xml: string): MensajeHacienda {
  let root: XmlElement;
  try {
    root = parseXmlTree(xml);
  } catch (err) {
    if (!(err instanceof XmlTreeError)) throw err;
    throw new MensajeHaciendaParseError(`not well-formed XML: ${err.message}`);
  }
  if (root.localName !== 'MensajeHacienda') {
    throw new MensajeHaciendaParseError(`expected a MensajeHacienda root element, got ${root.localName}`);
  }
  const fields = new Map<string, string>();
  let signed = false;
  for (const el of root.children) {
    if (el.localName === 'Signature' && el.namespaceURI === DSIG_NS) signed = true;
    else if (el.localName && !fields.has(el.localName)) fields.set(el.localName, el.textContent);
  }
  const text = (name: string): string | null => {
    const v = fields.get(name);
    if (v === undefined) return null;
    const t = v.trim();
    return t === '' ? null : t;
  };
  const clave = text('Clave');
  if (!clave) throw new MensajeHaciendaParseError('MensajeHacienda without Clave');
  const mensajeText = text('Mensaje');
  const mensaje = mensajeText === null ? NaN : Number(mensajeText);
  if (!Number.isInteger(mensaje)) throw new MensajeHaciendaParseError(`invalid Mensaje "${mensajeText}"`);
  const detalleMensaje = fields.get('DetalleMensaje') ?? '';
  return {
    clave,
    nombreEmisor: text('NombreEmisor'),
    tipoIdentificacionEmisor: text('TipoIdentificacionEmisor'),
    numeroCedulaEmisor: text('NumeroCedulaEmisor'),
    nombreReceptor: text('NombreReceptor'),
    tipoIdentificacionReceptor: text('TipoIdentificacionReceptor'),
    numeroCedulaReceptor: text('NumeroCedulaReceptor'),
    mensaje,
    accepted: mensaje === 1,
    estadoMensaje: text('EstadoMensaje'),
    detalleMensaje,
    detalle: parseDetalleMensaje(detalleMensaje),
    montoTotalImpuesto: text('MontoTotalImpuesto'),
    totalFactura: text('TotalFactura'),
    signed,
  };
}
