// The registry of document types: code → descriptor. Hacienda's types are registered here, one
// file each; a new type is one more file and one more line in BUILT_IN (or a registerDocumentType
// call, as the tests do with a type of their own). Everything that depends on the type asks here.
import { FACTURA } from './factura.ts';
import { FACTURA_COMPRA } from './factura-compra.ts';
import { FACTURA_EXPORTACION } from './factura-exportacion.ts';
import { ACEPTACION, ACEPTACION_PARCIAL, RECHAZO } from './mensajes-receptor.ts';
import { NOTA_CREDITO } from './nota-credito.ts';
import { NOTA_DEBITO } from './nota-debito.ts';
import { RECIBO_PAGO } from './recibo-pago.ts';
import { TIQUETE } from './tiquete.ts';
import type { DocumentTypeDescriptor } from './descriptor.ts';

export type { DocumentTypeDescriptor, RequestRules, TypeCheck, XmlLayout } from './descriptor.ts';
export { NAMESPACE_BASE, conditionsExcept, schemaOf } from './descriptor.ts';

/** Hacienda's types, in code order. */
const BUILT_IN: readonly DocumentTypeDescriptor[] = [
  FACTURA,
  NOTA_DEBITO,
  NOTA_CREDITO,
  TIQUETE,
  ACEPTACION,
  ACEPTACION_PARCIAL,
  RECHAZO,
  FACTURA_COMPRA,
  FACTURA_EXPORTACION,
  RECIBO_PAGO,
];

const registry = new Map<string, DocumentTypeDescriptor>(BUILT_IN.map((d) => [d.code, d]));

export class UnknownDocumentTypeError extends Error {}

/**
 * Adds a document type; its code must be two digits and free. Answers the function that removes
 * it again (a test's own type).
 */
export function registerDocumentType(descriptor: DocumentTypeDescriptor): () => void {
  if (!/^\d{2}$/.test(descriptor.code))
    throw new Error(`a document type code is 2 digits: ${descriptor.code}`);
  if (registry.has(descriptor.code))
    throw new Error(`document type ${descriptor.code} is already registered`);
  registry.set(descriptor.code, descriptor);
  return () => {
    if (registry.get(descriptor.code) === descriptor) registry.delete(descriptor.code);
  };
}

/** The descriptor of a code, or undefined. */
export function findDocumentType(code: unknown): DocumentTypeDescriptor | undefined {
  return typeof code === 'string' ? registry.get(code) : undefined;
}

/** The descriptor of a code; throws UnknownDocumentTypeError for a code nobody registered. */
export function documentType(code: string): DocumentTypeDescriptor {
  const d = registry.get(code);
  if (!d) throw new UnknownDocumentTypeError(`unknown document type "${code}"`);
  return d;
}

export const isDocumentTypeCode = (code: string): boolean => registry.has(code);

/** Every registered type, in the order registered. */
export function documentTypes(): DocumentTypeDescriptor[] {
  return [...registry.values()];
}

/** Hacienda's type written under a root element (the first registered with it), or undefined. */
export function documentTypeOfRoot(root: string): DocumentTypeDescriptor | undefined {
  return documentTypes().find((d) => d.xml.root === root);
}

/** The types the service issues (every one with a request: invoices, purchases, notes, receipts). */
export function typesIssued(): DocumentTypeDescriptor[] {
  return documentTypes().filter((d) => d.request !== null);
}

/** The types POST /api/v1/invoices issues (its `document_type`): invoices and purchases. */
export function typesIssuedOnRequest(): DocumentTypeDescriptor[] {
  return documentTypes().filter((d) => d.request?.form === 'invoice' || d.request?.form === 'purchase');
}

/** Whether a create-invoice body names a type read as a purchase (a supplier instead of a client). */
export const isPurchaseBody = (body: Record<string, unknown>): boolean =>
  findDocumentType(body.document_type)?.request?.form === 'purchase';

/** How documents and journal entries name a type: its Spanish name (`Comprobante NN` if unknown). */
export function documentTypeName(code: string): string {
  return registry.get(code)?.name.es ?? `Comprobante ${code}`;
}
