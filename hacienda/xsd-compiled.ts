// In-process schema validation of the documents the service writes, before they are signed: the
// official v4.4 XSD compiled once per process and document type by libxml2 (the WebAssembly build
// of the library xmllint is made of, `libxml2-wasm`), then a few milliseconds per document with no
// child process. xsd.ts (xmllint, many documents per process, Hacienda-style "cvc-…" rows) stays
// the simulator's and the tests' tool.
//
// The schemas require a ds:Signature, which an unsigned document does not have yet: a fixed,
// schema-valid placeholder is put where the signer will put the real one, so every other element
// is checked as Hacienda will check it. Only the schema folder's own files are ever read (the
// import of xmldsig-core-schema.xsd); nothing else is fetched.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Libxml2Module from 'libxml2-wasm';
import type { XmlBufferInputProvider, XsdValidator } from 'libxml2-wasm';
import { DEFAULT_SCHEMA_SET, SchemaNotFoundError, schemaPath, type SchemaDocumentType } from './xsd.ts';

/** A document that fails its XSD: the libxml2 messages, with the line of each. */
export class SchemaViolationError extends Error {
  constructor(
    readonly docType: SchemaDocumentType,
    readonly violations: { line: number; message: string }[],
  ) {
    const first = violations[0];
    super(
      `${docType} fails the v4.4 XSD: ${first ? `${first.message} (line ${first.line})` : 'invalid'}` +
        (violations.length > 1 ? ` and ${violations.length - 1} more` : ''),
    );
    this.name = 'SchemaViolationError';
  }
}

const PLACEHOLDER_SIGNATURE =
  '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo>' +
  '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>' +
  '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>' +
  '<ds:Reference URI=""><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>' +
  '<ds:DigestValue>AA==</ds:DigestValue></ds:Reference></ds:SignedInfo>' +
  '<ds:SignatureValue>AA==</ds:SignatureValue></ds:Signature>';

type Libxml2 = typeof Libxml2Module;
// Loaded on first use: processes that never validate (the API, most command-line commands) do not
// pay for instantiating the WebAssembly module.
let loading: Promise<Libxml2> | null = null;
let providers: XmlBufferInputProvider | null = null;
let providerRegistered = false;
const validators = new Map<string, XsdValidator>();

function compile(lib: Libxml2, xsdFile: string): XsdValidator {
  const { XmlBufferInputProvider, XmlDocument, xmlRegisterInputProvider, XsdValidator } = lib;
  providers ??= new XmlBufferInputProvider({});
  let v = validators.get(xsdFile);
  if (v) return v;
  if (!existsSync(xsdFile)) throw new SchemaNotFoundError(xsdFile);
  // The schema imports ../../xmldsig-core-schema.xsd: served from memory, under the names
  // libxml2 may ask for it by.
  const dsig = resolve(dirname(xsdFile), '../../xmldsig-core-schema.xsd');
  if (existsSync(dsig)) {
    const bytes = readFileSync(dsig);
    providers.addBuffer(dsig, bytes);
    providers.addBuffer(pathToFileURL(dsig).href, bytes);
  }
  if (!providerRegistered) providerRegistered = xmlRegisterInputProvider(providers);
  const schemaDoc = XmlDocument.fromBuffer(readFileSync(xsdFile), { url: xsdFile });
  try {
    v = XsdValidator.fromDoc(schemaDoc);
  } finally {
    schemaDoc.dispose();
  }
  validators.set(xsdFile, v);
  return v;
}

/**
 * Validates a document the builder wrote, before signing. Throws SchemaViolationError naming the
 * XSD's messages, or SchemaNotFoundError when the schema folder has no such file.
 */
export async function assertValidBeforeSigning(
  docType: SchemaDocumentType,
  xml: string,
  schemaDir: string,
  schemaSet = DEFAULT_SCHEMA_SET,
): Promise<void> {
  const lib = await (loading ??= import('libxml2-wasm'));
  const { XmlDocument, XmlValidateError } = lib;
  const validator = compile(lib, schemaPath(docType, { schemaDir, schemaSet }));
  const end = xml.lastIndexOf('</');
  if (end < 0) throw new SchemaViolationError(docType, [{ line: 0, message: 'not an XML document' }]);
  const withSignature = xml.slice(0, end) + PLACEHOLDER_SIGNATURE + xml.slice(end);
  let doc: InstanceType<Libxml2['XmlDocument']>;
  try {
    doc = XmlDocument.fromString(withSignature);
  } catch (err) {
    throw new SchemaViolationError(docType, [{ line: 0, message: (err as Error).message.trim() }]);
  }
  try {
    validator.validate(doc);
  } catch (err) {
    if (!(err instanceof XmlValidateError)) throw err;
    const violations = err.details.map((d) => ({ line: d.line ?? 0, message: d.message.trim() }));
    throw new SchemaViolationError(
      docType,
      violations.length ? violations : [{ line: 0, message: err.message }],
    );
  } finally {
    doc.dispose();
  }
}
