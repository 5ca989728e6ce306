// Schema check of received documents against the official XSDs (hacienda/xsd.ts, xmllint).
// Spawning xmllint per document would cap the simulator at a few dozen documents per second, so
// documents are batched: each document type collects what arrives within a short window (or up to
// a batch size) and one xmllint process validates the whole batch, compiling the schema once.
// At most one xmllint run per type is in flight; the next batch fills while it runs.
// Errors come back as Hacienda's rows: -1, "cvc-…", fila, columna.
import { existsSync } from 'node:fs';
import {
  SchemaNotFoundError,
  schemaPath,
  validateXmlBatch,
  XmllintMissingError,
} from '../../hacienda/xsd.ts';
import type { SchemaDocumentType } from '../../hacienda/xsd.ts';
import type { Row } from './verdict.ts';

const SCHEMA_TYPES = new Set<string>([
  'FacturaElectronica',
  'NotaCreditoElectronica',
  'NotaDebitoElectronica',
  'TiqueteElectronico',
  'MensajeReceptor',
  'ReciboElectronicoPago',
  'FacturaElectronicaCompra',
  'FacturaElectronicaExportacion',
]);
// A batch closes after this long or at this size, whichever comes first.
const BATCH_WINDOW_MS = 10;
const BATCH_MAX = 500;

export interface SchemaChecker {
  /** Rows for the document, or null when it could not be checked (no schema for the type, no xmllint). */
  check(rootName: string, xml: Buffer): Promise<Row[] | null>;
  /** Whether a schema exists for this root element. */
  supports(rootName: string): boolean;
  close(): void;
}

interface Pending {
  xml: Buffer;
  resolve: (rows: Row[] | null) => void;
  reject: (err: unknown) => void;
}

export function createSchemaChecker(
  schemaDir: string,
  onUnavailable: (reason: string) => void,
): SchemaChecker {
  const queues = new Map<string, { items: Pending[]; timer: NodeJS.Timeout | null; running: boolean }>();
  let disabled = false;
  let closed = false;

  const available = new Map<string, boolean>();
  const supports = (rootName: string): boolean => {
    if (disabled || !SCHEMA_TYPES.has(rootName)) return false;
    let ok = available.get(rootName);
    if (ok === undefined) {
      ok = existsSync(schemaPath(rootName as SchemaDocumentType, { schemaDir }));
      available.set(rootName, ok);
    }
    return ok;
  };

  function schedule(type: string) {
    const q = queues.get(type);
    if (!q || q.running || q.timer || q.items.length === 0) return;
    if (q.items.length >= BATCH_MAX) void run(type);
    else q.timer = setTimeout(() => void run(type), BATCH_WINDOW_MS);
  }

  async function run(type: string) {
    const q = queues.get(type);
    if (!q) return;
    if (q.timer) clearTimeout(q.timer);
    q.timer = null;
    const batch = q.items.splice(0, BATCH_MAX);
    if (batch.length === 0) return;
    q.running = true;
    try {
      const results = await validateXmlBatch(
        type as SchemaDocumentType,
        batch.map((p) => p.xml),
        { schemaDir },
      );
      resolveBatch(batch, results);
    } catch (err) {
      if (err instanceof XmllintMissingError || err instanceof SchemaNotFoundError) {
        disabled = true;
        onUnavailable(err.message);
        batch.forEach((p) => p.resolve(null));
      } else batch.forEach((p) => p.reject(err));
    } finally {
      q.running = false;
      if (!closed) schedule(type);
    }
  }

  return {
    supports,
    check(rootName, xml) {
      if (!supports(rootName)) return Promise.resolve(null);
      let q = queues.get(rootName);
      if (!q) {
        q = { items: [], timer: null, running: false };
        queues.set(rootName, q);
      }
      const queue = q;
      return new Promise<Row[] | null>((resolve, reject) => {
        queue.items.push({ xml, resolve, reject });
        schedule(rootName);
      });
    },
    close() {
      closed = true;
      for (const q of queues.values()) {
        if (q.timer) clearTimeout(q.timer);
        q.timer = null;
        for (const p of q.items.splice(0)) p.resolve(null);
      }
    },
  };
}

/** Each document of a batch gets the rows of its xmllint result (-1 with fila/columna), or null. */
function resolveBatch(batch: Pending[], results: Awaited<ReturnType<typeof validateXmlBatch>>): void {
  batch.forEach((p, i) => {
    const r = results[i];
    p.resolve(r ? r.errors.map((e) => ({ code: -1, message: e.cvc, line: e.line, column: e.column })) : null);
  });
}
