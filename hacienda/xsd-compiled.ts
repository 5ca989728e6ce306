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
// keeps a process alive, and a thread that dies is replaced on the next call. Documents travel to
// it in groups (checkBeforeSigning: a sign job's chunk, up to 64 documents or 1 MB of text per
// exchange): each exchange wakes both threads and costs about what a small document's validation
// does: sending documents one by one cost 0.17–0.25 ms more CPU per document than in groups.
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
// One message per batch of documents, { id, docs: [{ xsdFile, dsigFile, xml }] } → { id, replies },
// one reply per document in order: {} | { violations } | { error }. The documents are validated one
// after the other, each disposed before the next; one document's failure is its own reply.
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
    return { violations: [{ line: 0, message: String(err && err.message).trim() }] };
  }
  try {
    validator.validate(doc);
    return {};
  } catch (err) {
    if (!(err instanceof lib.XmlValidateError)) throw err;
    const violations = err.details.map((d) => ({ line: d.line ?? 0, message: d.message.trim() }));
    return { violations: violations.length ? violations : [{ line: 0, message: err.message }] };
  } finally {
    doc.dispose();
  }
}
const failure = (err) => ({ error: String((err && err.stack) || err) });
function checkAll(lib, docs) {
  return docs.map((d) => {
    try {
      return check(lib, d);
    } catch (err) {
      return failure(err);
    }
  });
}
parentPort.on('message', (m) => {
  loading
    .then((lib) => checkAll(lib, m.docs), (err) => m.docs.map(() => failure(err)))
    .then((replies) => parentPort.postMessage({ id: m.id, replies }));
});
`;

type Reply = { violations?: { line: number; message: string }[]; error?: string };
type BatchReply = { id: number; replies: Reply[] };

let thread: Worker | null = null;
let nextId = 0;
const pending = new Map<number, { resolve: (r: Reply[]) => void; reject: (err: Error) => void }>();

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
  t.on('message', (r: BatchReply) => {
    const p = pending.get(r.id);
    pending.delete(r.id);
    if (pending.size === 0) t.unref();
    p?.resolve(r.replies);
  });
  t.on('error', fail);
  t.on('exit', (code) => fail(new Error(`the XSD validator thread exited (code ${code})`)));
  t.unref();
  thread = t;
  return t;
}

function validateOnThread(docs: { xsdFile: string; xml: string }[]): Promise<Reply[]> {
  const t = validatorThread();
  const id = ++nextId;
  return new Promise<Reply[]>((done, reject) => {
    pending.set(id, { resolve: done, reject });
    // Referenced while a batch is in flight: the caller's await keeps the process alive.
    t.ref();
    t.postMessage({
      id,
      docs: docs.map((d) => ({
        ...d,
        dsigFile: resolve(dirname(d.xsdFile), '../../xmldsig-core-schema.xsd'),
      })),
    });
  });
}

/** Stops the validator thread (tests; a process exits without it, the thread being unref'd). */
export async function closeSchemaValidator(): Promise<void> {
  const t = thread;
  thread = null;
  if (t) await t.terminate();
}

/**
 * Documents per exchange with the thread, and their text at most (a document larger than that
 * goes alone): one exchange costs about as much CPU as validating a small document, so a chunk's
 * documents go together, while the copy the thread receives stays small.
 */
const EXCHANGE_DOCS = 64;
const EXCHANGE_CHARS = 1 << 20;

/** `docs` in consecutive groups of at most EXCHANGE_DOCS documents and EXCHANGE_CHARS characters. */
function exchanges<T extends { xml: string }>(docs: T[]): T[][] {
  const groups: T[][] = [];
  let chars = 0;
  for (const doc of docs) {
    const last = groups.at(-1);
    if (last && last.length < EXCHANGE_DOCS && chars + doc.xml.length <= EXCHANGE_CHARS) {
      last.push(doc);
      chars += doc.xml.length;
    } else {
      groups.push([doc]);
      chars = doc.xml.length;
    }
  }
  return groups;
}

/** A document the builder wrote, to be checked against its type's XSD before it is signed. */
export interface UnsignedDocument {
  docType: SchemaDocumentType;
  xml: string;
}

/**
 * Validates documents the builder wrote, before signing, in few exchanges with the validator
 * thread (`exchanges`): for each document in order, null when it is valid, else the error that stops it
 * (SchemaViolationError naming the XSD's messages, SchemaNotFoundError when the schema folder has
 * no such file, or an Error when libxml2 itself failed on it). Rejects only when the thread dies.
 */
export async function checkBeforeSigning(
  docs: readonly UnsignedDocument[],
  schemaDir: string,
  schemaSet = DEFAULT_SCHEMA_SET,
): Promise<(Error | null)[]> {
  const errors: (Error | null)[] = docs.map(() => null);
  const sent: { index: number; xsdFile: string; xml: string }[] = [];
  const found = new Map<string, boolean>(); // each schema file looked for once per call
  docs.forEach(({ docType, xml }, index) => {
    const xsdFile = schemaPath(docType, { schemaDir, schemaSet });
    if (!found.has(xsdFile)) found.set(xsdFile, existsSync(xsdFile));
    const end = xml.lastIndexOf('</');
    if (!found.get(xsdFile)) errors[index] = new SchemaNotFoundError(xsdFile);
    else if (end < 0)
      errors[index] = new SchemaViolationError(docType, [{ line: 0, message: 'not an XML document' }]);
    else sent.push({ index, xsdFile, xml: xml.slice(0, end) + PLACEHOLDER_SIGNATURE + xml.slice(end) });
  });
  for (const group of exchanges(sent)) {
    const replies = await validateOnThread(group.map(({ xsdFile, xml }) => ({ xsdFile, xml })));
    group.forEach(({ index }, i) => {
      const reply = replies[i]!;
      if (reply.error) errors[index] = new Error(`XSD validation failed: ${reply.error}`);
      else if (reply.violations)
        errors[index] = new SchemaViolationError(docs[index]!.docType, reply.violations);
    });
  }
  return errors;
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
  const [error] = await checkBeforeSigning([{ docType, xml }], schemaDir, schemaSet);
  if (error) throw error;
}
