// In-process schema validation of the documents the service writes, before they are signed: the
// official v4.4 XSD compiled once per process and document type by libxml2 (the WebAssembly build
// of the library xmllint is made of, `libxml2-wasm`), then a few milliseconds per document with no
// child process. xsd.ts (xmllint, many documents per process, Hacienda-style "cvc-…" rows) stays
// the simulator's and the tests' tool.
//
// libxml2 runs on one worker thread of the process, started on first use with no loader flags
// (`execArgv: []`), so its ~1 MB generated module is loaded by plain node: through tsx's loader
// (`node --import tsx`, how development and the bench run the worker) that one module cost about
// 150 MB of resident memory, which never came back. The thread holds one compiled schema per
// document type, disposes every parsed document, and its WebAssembly memory only grows to the
// largest documents validated at once (one at a time here); it is unref'd while idle, so it never
// keeps a process alive, and a thread that dies is replaced on the next call.
//
// The schemas require a ds:Signature, which an unsigned document does not have yet: a fixed,
// schema-valid placeholder is put where the signer will put the real one, so every other element
// is checked as Hacienda will check it. Only the schema folder's own files are ever read (the
// import of xmldsig-core-schema.xsd); nothing else is fetched.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
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

// The thread's code: plain JavaScript (CommonJS, run with `eval`), so it needs no TypeScript loader.
// One message per document: { id, xsdFile, dsigFile, xml } → { id } | { id, violations } | { id, error }.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { existsSync, readFileSync } = require('node:fs');
const { pathToFileURL } = require('node:url');
const loading = import(workerData.libxml2);
let providers = null;
let registered = false;
const validators = new Map();
function compile(lib, xsdFile, dsigFile) {
  let v = validators.get(xsdFile);
  if (v) return v;
  providers ??= new lib.XmlBufferInputProvider({});
  // The schema imports ../../xmldsig-core-schema.xsd: served from memory, under the names
  // libxml2 may ask for it by.
  if (dsigFile && existsSync(dsigFile)) {
    const bytes = readFileSync(dsigFile);
    providers.addBuffer(dsigFile, bytes);
    providers.addBuffer(pathToFileURL(dsigFile).href, bytes);
  }
  if (!registered) registered = lib.xmlRegisterInputProvider(providers);
  const schemaDoc = lib.XmlDocument.fromBuffer(readFileSync(xsdFile), { url: xsdFile });
  try {
    v = lib.XsdValidator.fromDoc(schemaDoc);
  } finally {
    schemaDoc.dispose();
  }
  validators.set(xsdFile, v);
  return v;
}
function check(lib, m) {
  const validator = compile(lib, m.xsdFile, m.dsigFile);
  let doc;
  try {
    doc = lib.XmlDocument.fromString(m.xml);
  } catch (err) {
    return { id: m.id, violations: [{ line: 0, message: String(err && err.message).trim() }] };
  }
  try {
    validator.validate(doc);
    return { id: m.id };
  } catch (err) {
    if (!(err instanceof lib.XmlValidateError)) throw err;
    const violations = err.details.map((d) => ({ line: d.line ?? 0, message: d.message.trim() }));
    return { id: m.id, violations: violations.length ? violations : [{ line: 0, message: err.message }] };
  } finally {
    doc.dispose();
  }
}
parentPort.on('message', (m) => {
  loading
    .then((lib) => check(lib, m))
    .catch((err) => ({ id: m.id, error: String((err && err.stack) || err) }))
    .then((reply) => parentPort.postMessage(reply));
});
`;

type Reply = { id: number; violations?: { line: number; message: string }[]; error?: string };

let thread: Worker | null = null;
let nextId = 0;
const pending = new Map<number, { resolve: (r: Reply) => void; reject: (err: Error) => void }>();

function libxml2Url(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('libxml2-wasm')).href;
}

function validatorThread(): Worker {
  if (thread) return thread;
  const t = new Worker(THREAD_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: { libxml2: libxml2Url() },
    name: 'xsd-validator',
  });
  const fail = (err: Error) => {
    if (thread !== t) return;
    thread = null;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  t.on('message', (r: Reply) => {
    const p = pending.get(r.id);
    pending.delete(r.id);
    if (pending.size === 0) t.unref();
    p?.resolve(r);
  });
  t.on('error', fail);
  t.on('exit', (code) => fail(new Error(`the XSD validator thread exited (code ${code})`)));
  t.unref();
  thread = t;
  return t;
}

function validateOnThread(xsdFile: string, xml: string): Promise<Reply> {
  const t = validatorThread();
  const id = ++nextId;
  return new Promise<Reply>((done, reject) => {
    pending.set(id, { resolve: done, reject });
    // Referenced while a document is in flight: the caller's await keeps the process alive.
    t.ref();
    const dsigFile = resolve(dirname(xsdFile), '../../xmldsig-core-schema.xsd');
    t.postMessage({ id, xsdFile, dsigFile, xml });
  });
}

/** Stops the validator thread (tests; a process exits without it, the thread being unref'd). */
export async function closeSchemaValidator(): Promise<void> {
  const t = thread;
  thread = null;
  if (t) await t.terminate();
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
  const xsdFile = schemaPath(docType, { schemaDir, schemaSet });
  if (!existsSync(xsdFile)) throw new SchemaNotFoundError(xsdFile);
  const end = xml.lastIndexOf('</');
  if (end < 0) throw new SchemaViolationError(docType, [{ line: 0, message: 'not an XML document' }]);
  const withSignature = xml.slice(0, end) + PLACEHOLDER_SIGNATURE + xml.slice(end);
  const reply = await validateOnThread(xsdFile, withSignature);
  if (reply.error) throw new Error(`XSD validation failed: ${reply.error}`);
  if (reply.violations) throw new SchemaViolationError(docType, reply.violations);
}
