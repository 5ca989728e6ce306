// The life of a received document: stored as recibido, checked in the background (a bounded
// number at a time), terminal once the checks are done AND the processing delay has passed, then
// the callback. The signed MensajeHacienda is built on first read and cached, so documents nobody
// asks about cost no signature.
import { inspectDocument, unknownSummary } from './checks/inspect.ts';
import type { RequestIdentity } from './checks/clave.ts';
import type { Verdict } from './checks/verdict.ts';
import { later } from './context.ts';
import type { SimulatorContext } from './context.ts';
import { buildMensajeHacienda, formatDetalleMensaje } from './mensaje-builder.ts';
import { claveFraction } from './random.ts';
import { isTerminal, stateAt } from './store.ts';
import type { SimDocument } from './store.ts';

// Inspections in flight at once; signature checks run in libuv's thread pool, schema checks in
// batched xmllint processes, so a few dozen keep both busy without flooding memory.
const MAX_CONCURRENT_INSPECTIONS = 32;

export interface ReceiveInput {
  /** Environment (realm) the document was sent to; each keeps its own documents. */
  scope: string;
  /** Clave, or clave-consecutivoReceptor for a MensajeReceptor. */
  key: string;
  clave: string;
  sandbox: boolean;
  fecha: string;
  callbackUrl: string | null;
  emisor: { tipoIdentificacion: string; numeroIdentificacion: string };
  /** A MensajeReceptor's: the receptor and its consecutivo, from the request body. */
  receptor?: { tipoIdentificacion: string; numeroIdentificacion: string };
  consecutivoReceptor?: string;
  xml: Buffer;
}

export interface Processor {
  receive(input: ReceiveInput): SimDocument;
  /** The GET /recepcion/{clave} body (also the callback body). */
  statusBody(doc: SimDocument): Promise<Record<string, string>>;
  /** Resolves once no inspection is queued or running (for tests and shutdown). */
  idle(): Promise<void>;
}

export function createProcessor(ctx: SimulatorContext): Processor {
  const inspections = createInspectionQueue();

  async function inspect(
    doc: SimDocument,
    xml: Buffer,
    duplicateConsecutivo: boolean,
    receptor?: ReceptorMessageInput,
  ) {
    const verdict = await judge(ctx, doc, xml, duplicateConsecutivo, receptor);
    doc.verdict = verdict;
    if (verdict.state === 'aceptado') ctx.counters.accepted += 1;
    else if (verdict.state === 'rechazado') ctx.counters.rejected += 1;
    else ctx.counters.errors += 1;
    if (doc.callbackUrl) later(ctx, doc.dueAt - ctx.now(), () => void deliverCallback(doc));
  }

  async function responseXml(doc: SimDocument): Promise<string | null> {
    const v = doc.verdict;
    if (!v || v.state === 'error') return null;
    doc.response ??= (async () => {
      const xml = buildMensajeHacienda(doc.clave, v, formatDetalleMensaje(v, doc.sandbox));
      const signed = ctx.knobs.signResponses ? await (await ctx.signer).sign(xml) : xml;
      return Buffer.from(signed, 'utf8').toString('base64');
    })();
    return doc.response;
  }

  async function statusBody(doc: SimDocument): Promise<Record<string, string>> {
    const state = stateAt(doc, ctx.now());
    const body: Record<string, string> = { clave: doc.clave, fecha: doc.fecha, 'ind-estado': state };
    if (isTerminal(state)) {
      const xml = await responseXml(doc);
      if (xml !== null) body['respuesta-xml'] = xml;
    }
    if (doc.callbackUrl) body.callbackUrl = doc.callbackUrl;
    return body;
  }

  async function deliverCallback(doc: SimDocument) {
    if (!doc.callbackUrl || ctx.closing) return;
    doc.callback = 'pending';
    try {
      const status = await ctx.postCallback(
        doc.callbackUrl,
        JSON.stringify(await statusBody(doc)),
        ctx.knobs.callbackTimeoutMs,
      );
      doc.callback = status >= 200 && status < 300 ? 'delivered' : 'failed';
    } catch {
      doc.callback = 'failed';
    }
    if (doc.callback === 'delivered') ctx.counters.callbacksDelivered += 1;
    else ctx.counters.callbacksFailed += 1;
  }

  return {
    receive(input) {
      const doc = storeReceived(ctx, input);
      const duplicate = claimConsecutivo(ctx, input, doc);
      const receptor = receptorMessage(ctx, input);
      inspections.push(() => inspect(doc, input.xml, duplicate, receptor));
      return doc;
    },
    statusBody,
    idle: inspections.idle,
  };
}

/** Runs queued inspections, at most MAX_CONCURRENT_INSPECTIONS at once. */
function createInspectionQueue(): { push(job: () => Promise<void>): void; idle(): Promise<void> } {
  let running = 0;
  const queue: (() => Promise<void>)[] = [];
  let idleWaiters: (() => void)[] = [];

  function pump() {
    while (running < MAX_CONCURRENT_INSPECTIONS && queue.length > 0) {
      const job = queue.shift()!;
      running += 1;
      void job().finally(() => {
        running -= 1;
        pump();
        if (running === 0 && queue.length === 0) {
          const w = idleWaiters;
          idleWaiters = [];
          w.forEach((r) => r());
        }
      });
    }
  }

  return {
    push(job) {
      queue.push(job);
      pump();
    },
    idle() {
      if (running === 0 && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

/** A received document, stored as recibido and counted. */
function storeReceived(ctx: SimulatorContext, input: ReceiveInput): SimDocument {
  const now = ctx.now();
  const doc: SimDocument = {
    key: input.key,
    clave: input.clave,
    sandbox: input.sandbox,
    fecha: input.fecha,
    callbackUrl: input.callbackUrl,
    emisor: input.emisor,
    receivedAt: now,
    dueAt: now + ctx.knobs.processingDelayMs,
    verdict: null,
    response: null,
    callback: 'none',
  };
  ctx.store.docs.set(`${input.scope}:${input.key}`, doc);
  ctx.counters.received += 1;
  return doc;
}

/** Claims the document's consecutivo for its issuer: true when another document already has it. */
function claimConsecutivo(ctx: SimulatorContext, input: ReceiveInput, doc: SimDocument): boolean {
  // A MensajeReceptor's own number is the receptor's (NumeroConsecutivoReceptor).
  const receptorId = input.consecutivoReceptor ? input.receptor?.numeroIdentificacion : undefined;
  const consecutivo = receptorId
    ? input.consecutivoReceptor
    : /<(?:[\w.-]+:)?NumeroConsecutivo>\s*(\d{20})\s*</.exec(input.xml.toString('utf8'))?.[1];
  return consecutivo
    ? ctx.store.claimConsecutivo(
        `${input.scope}|${(receptorId ?? input.emisor.numeroIdentificacion).replace(/^0+/, '')}`,
        consecutivo,
        doc.key,
      )
    : false;
}

type ReceptorMessageInput = NonNullable<ReturnType<typeof receptorMessage>>;

/** What a MensajeReceptor's checks need: its request and the document it answers, if held. */
function receptorMessage(ctx: SimulatorContext, input: ReceiveInput) {
  if (!input.consecutivoReceptor) return undefined;
  const ref = ctx.store.docs.get(`${input.scope}:${input.clave}`);
  return {
    request: {
      clave: input.clave,
      emisor: input.emisor,
      ...(input.receptor ? { receptor: input.receptor } : {}),
      consecutivoReceptor: input.consecutivoReceptor,
    },
    referenced: ref ? { state: stateAt(ref, ctx.now()), summary: ref.verdict?.summary ?? null } : null,
  };
}

/** The document's verdict: an error state by the knobs' rate, else the checks' (error if they fail). */
async function judge(
  ctx: SimulatorContext,
  doc: SimDocument,
  xml: Buffer,
  duplicateConsecutivo: boolean,
  receptor?: ReceptorMessageInput,
): Promise<Verdict> {
  const k = ctx.knobs;
  if (claveFraction(doc.key, 'error') < k.errorStateRate) {
    return { state: 'error', freeText: [], rows: [], summary: unknownSummary() };
  }
  const request: RequestIdentity = { clave: doc.clave, emisor: doc.emisor };
  try {
    return await inspectDocument({
      xml,
      request,
      duplicateConsecutivo,
      forceRejection: claveFraction(doc.key, 'reject') < k.forcedRejectionRate,
      now: ctx.now(),
      knobs: k,
      schema: ctx.schema,
      cabys: ctx.cabys,
      trustedCas: ctx.trustedCas,
      ...(receptor ? { receptorMessage: receptor } : {}),
    });
  } catch (err) {
    // A fault of the simulator itself: Hacienda's answer to the unexplained is "error".
    ctx.log.error({ err, clave: doc.clave }, 'simulator failed to inspect a document');
    return { state: 'error', freeText: [], rows: [], summary: unknownSummary() };
  }
}
