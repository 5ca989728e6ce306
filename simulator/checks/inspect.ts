// What the simulator checks on each received document, in Hacienda's order: a document that is
// not XML, or whose signature fails (cryptography, signer, policy, role, SigningTime,
// certificate), is rejected on that alone (free text, as Hacienda does); otherwise every failing
// check adds its rows to one DetalleMensaje table: schema (-1 with fila/columna), document type
// and clave (-1, consecutivo structure -78), repeated consecutivo (-99), the business rules
// (business-rules.ts: issue date -16 and -1, location -37, PlazoCredito -58, our own rules -1…),
// totals (Hacienda's -44…-290, totals.ts), and the forced rejections of the fault injector (-37).
// A document that passes is accepted, with the observations of checks/observations.ts (-16 sent
// late, -37 location) when it has any.
import type { X509Certificate } from 'node:crypto';
import type { SimulatorKnobs } from '../knobs.ts';
import { BUSINESS_RULE_KNOBS, checkBusinessRules } from './business-rules.ts';
import { checkClave } from './clave.ts';
import { checkReceptorMessage, type ReceptorRequest, type ReferencedDocument } from './receptor-message.ts';
import type { RequestIdentity } from './clave.ts';
import type { SchemaChecker } from './schema.ts';
import { observeDocument } from './observations.ts';
import { checkSignatureRules } from './signature-rules.ts';
import { issuerElement, purchaseRule, receiptRule } from './rules-purchase-receipt.ts';
import { typeOfDocument } from './rule-context.ts';
import { inspectSignature } from './signature.ts';
import { RULE_TEXTS } from './rule-texts.ts';
import { checkTotals } from './totals.ts';
import type { DocumentSummary, Row, Verdict } from './verdict.ts';
import { child, NotWellFormedError, parseXml, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';

const NAMESPACE_BASE = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/';

export const ROW_TEXTS = {
  duplicateConsecutivo:
    'La numeración consecutiva del comprobante que se esta utilizando para este archivo XML ya existe en nuestras bases de datos.',
  ubicacion:
    "Estimado obligado tributario los datos suministrados en provincia, cantón y distrito del 'emisor' no concuerdan con la información registrada en la Dirección General de Tributación, favor proceder actualizar sus datos.",
  // FechaEmision ahead of the clock: ours (-1; Hacienda's -53 is TotalVentaNeta).
  horaOficial: RULE_TEXTS.issueDateFuture,
  tipo: 'El tipo de documento no corresponde.',
} as const;

/** Every business rule off but the issue date (for MensajeReceptor). */
const onlyIssueDate = Object.fromEntries(
  BUSINESS_RULE_KNOBS.filter((knob) => knob !== 'checkIssueDate').map((knob) => [knob, false]),
);

export interface InspectInput {
  xml: Buffer;
  request: RequestIdentity;
  /** Another document of the same emisor already used this consecutivo. */
  duplicateConsecutivo: boolean;
  /** Fault injector: reject regardless of content (-37). */
  forceRejection: boolean;
  now: number;
  /** Which checks run (check* knobs) and their limits. */
  knobs: SimulatorKnobs;
  schema: SchemaChecker | null;
  /** Hacienda's CABYS codes, when the operator supplied the catalogue. */
  cabys: ReadonlySet<string> | null;
  /** CAs whose certificates may sign (the sandbox CA and SIMULATOR_TRUSTED_CA). */
  trustedCas: readonly X509Certificate[];
  /** A MensajeReceptor's request and the document it answers (null: never received here). */
  receptorMessage?: { request: ReceptorRequest; referenced: ReferencedDocument | null };
}

export async function inspectDocument(input: InspectInput): Promise<Verdict> {
  const xml = input.xml.toString('utf8');
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (err) {
    const message = err instanceof NotWellFormedError ? err.message : String(err);
    return {
      state: 'rechazado',
      freeText: [],
      rows: [
        {
          code: -1,
          message: `El XML del comprobante no está bien formado: ${message}`.trim(),
          line: 0,
          column: 0,
        },
      ],
      summary: unknownSummary(),
    };
  }
  const summary = summarise(root);
  const name = root.localName ?? '';
  const isReceptorMessage = name === 'MensajeReceptor';
  // Its document type (domain/document-types/), from the consecutivo and the root element.
  const type = typeOfDocument(root);
  const tipo = type?.code ?? null;
  // The issuer signs: the emisor, or the buyer (Receptor) of a factura electrónica de compra.
  const issuer = issuerElement(type);
  const emisor = isReceptorMessage
    ? { tipo: null, numero: text(root, 'NumeroCedulaReceptor') }
    : {
        tipo: text(root, issuer, 'Identificacion', 'Tipo'),
        numero: text(root, issuer, 'Identificacion', 'Numero'),
      };

  const k = input.knobs;
  const fechaText = text(root, 'FechaEmision') ?? text(root, 'FechaEmisionDoc');
  const fecha = fechaText === null || Number.isNaN(Date.parse(fechaText)) ? null : Date.parse(fechaText);
  const [signature, schemaRows] = await Promise.all([
    k.checkSignature ? inspectSignature(xml, emisor) : Promise.resolve(null),
    k.checkSchema && input.schema ? input.schema.check(name, input.xml) : Promise.resolve(null),
  ]);
  const freeText = signature?.texts ?? [];
  if (signature && freeText.length === 0) {
    freeText.push(
      ...checkSignatureRules({
        root,
        verification: signature.verification,
        checks: {
          policy: k.checkSignaturePolicy,
          role: k.checkSignerRole,
          signingTime: k.checkSigningTime,
          certificate: k.checkCertificate,
        },
        trustedCas: input.trustedCas,
        now: input.now,
        fechaEmision: fecha,
        maxClockSkewMs: k.maxClockSkewMs,
      }),
    );
  }
  if (freeText.length > 0) return { state: 'rechazado', freeText, rows: [], summary };

  const rows: Row[] = [...(schemaRows ?? [])];
  const known = type !== null || isReceptorMessage;
  if (!known) rows.push({ code: -1, message: ROW_TEXTS.tipo, line: 0, column: 0 });
  else if (
    schemaRows === null &&
    root.namespaceURI !== NAMESPACE_BASE + name.charAt(0).toLowerCase() + name.slice(1)
  ) {
    rows.push({
      code: -1,
      message: `cvc-elt.1.a: Cannot find the declaration of element '${name}'.`,
      line: 1,
      column: 1,
    });
  }
  if (k.checkClave && !isReceptorMessage) rows.push(...checkClave(root, input.request, tipo, issuer));
  if (k.checkClave && isReceptorMessage && input.receptorMessage)
    rows.push(...checkReceptorMessage(root, input.receptorMessage.request, input.receptorMessage.referenced));
  if (k.checkConsecutivo && input.duplicateConsecutivo) {
    rows.push({ code: -99, message: ROW_TEXTS.duplicateConsecutivo, line: 0, column: 0 });
  }
  const ruleContext = {
    root,
    tipo,
    fechaEmision: fecha,
    now: input.now,
    cabys: input.cabys,
    maxDocumentAgeMs: k.maxDocumentAgeMs,
    maxClockSkewMs: k.maxClockSkewMs,
  };
  if (isReceptorMessage) {
    // A MensajeReceptor answers another document, whose date (FechaEmisionDoc) may be days old:
    // only a date ahead of the official clock is refused.
    const context = { ...ruleContext, maxDocumentAgeMs: Number.POSITIVE_INFINITY };
    if (k.checkIssueDate) rows.push(...checkBusinessRules(context, { ...k, ...onlyIssueDate }));
  } else if (known) {
    rows.push(...checkBusinessRules(ruleContext, k));
    rows.push(...purchaseRule(ruleContext), ...receiptRule(ruleContext));
  }
  // Documents with LineaDetalle/ResumenFactura in the FE layout (the REP has a reduced one).
  if (k.checkTotals && type?.checks.includes('totals')) rows.push(...checkTotals(root));
  if (input.forceRejection) rows.push({ code: -37, message: ROW_TEXTS.ubicacion, line: 0, column: 0 });
  if (rows.length) return { state: 'rechazado', freeText: [], rows, summary };
  // Accepted; a comprobante may come with observations (-16 sent late, -37 location).
  const observations = isReceptorMessage ? [] : observeDocument(ruleContext, k);
  return { state: 'aceptado', freeText: [], rows, observations, summary };
}

/** Hacienda's filler when it cannot read the emisor (CRLibre #53): DESCONOCIDO and zeros. */
export function unknownSummary(): DocumentSummary {
  return {
    nombreEmisor: 'DESCONOCIDO',
    tipoIdentificacionEmisor: '01',
    numeroCedulaEmisor: '000000000',
    nombreReceptor: null,
    tipoIdentificacionReceptor: null,
    numeroCedulaReceptor: null,
    montoTotalImpuesto: null,
    totalFactura: '0',
  };
}

function summarise(root: XmlElement): DocumentSummary {
  if (root.localName === 'MensajeReceptor') {
    return {
      ...unknownSummary(),
      nombreEmisor: '',
      numeroCedulaEmisor: text(root, 'NumeroCedulaEmisor') ?? '000000000',
      montoTotalImpuesto: text(root, 'MontoTotalImpuesto'),
      totalFactura: text(root, 'TotalFactura') ?? '0',
    };
  }
  const emisor = child(root, 'Emisor');
  const receptor = child(root, 'Receptor');
  return {
    nombreEmisor: text(emisor, 'Nombre') ?? 'DESCONOCIDO',
    tipoIdentificacionEmisor: text(emisor, 'Identificacion', 'Tipo') ?? '01',
    numeroCedulaEmisor: text(emisor, 'Identificacion', 'Numero') ?? '000000000',
    nombreReceptor: text(receptor, 'Nombre'),
    tipoIdentificacionReceptor: text(receptor, 'Identificacion', 'Tipo'),
    numeroCedulaReceptor: text(receptor, 'Identificacion', 'Numero'),
    montoTotalImpuesto: text(root, 'ResumenFactura', 'TotalImpuesto'),
    totalFactura: text(root, 'ResumenFactura', 'TotalComprobante') ?? '0',
  };
}
