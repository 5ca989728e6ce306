// The simulator accepts documents WITH observations, as Hacienda does: a document sent after the
// sending window (-16) and, with the `observeLocation` knob, an emisor location not as registered
// (-37) come back as Mensaje 1 whose DetalleMensaje is the sandbox preamble and a bare
// `codigo, mensaje, fila, columna` table (no intro sentence, no brackets). The service reads them
// as observations, never as reasons for a rejection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMensajeHacienda } from '../hacienda/mensaje-hacienda.ts';
import { observationsOf } from '../hacienda/observations.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { buildSimulator } from '../simulator/app.ts';
import type { SimulatorApp } from '../simulator/app.ts';
import { SANDBOX_PREAMBLE } from '../simulator/mensaje-builder.ts';
import { RULE_TEXTS } from '../simulator/checks/rule-texts.ts';
import { testFactura, TEST_LINES } from './helpers/documents.ts';
import { EMISOR, signerFor, submission, XSD_DIR } from './helpers/hacienda-fixtures.ts';

let app: SimulatorApp;
let token: string;
let numbers = 5000;

beforeAll(async () => {
  app = await buildSimulator({
    processingDelayMs: 0,
    schemaDir: XSD_DIR,
    cabysCatalogue: new Set(TEST_LINES.map((l) => l.cabys)),
  });
  const res = await app.inject({
    method: 'POST',
    url: '/auth/realms/rut-stag/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=password&client_id=api-stag&username=emisor&password=pw',
  });
  token = res.json<{ access_token: string }>().access_token;
});
afterAll(async () => {
  await app.close();
});

/** Submits a signed factura issued at `issuedAt`; returns the simulator's view and its answer. */
async function submit(issuedAt: Date) {
  const doc = testFactura({ issuedAt, number: ++numbers });
  const xml = await (await signerFor(EMISOR)).sign(buildComprobanteXml('FacturaElectronica', doc));
  const post = await app.inject({
    method: 'POST',
    url: '/recepcion-sandbox/v1/recepcion',
    headers: { authorization: `Bearer ${token}` },
    payload: submission(doc, xml),
  });
  expect(post.statusCode).toBe(202);
  await app.simulator.idle();
  const status = await app.inject({
    url: `/recepcion-sandbox/v1/recepcion/${doc.clave}`,
    headers: { authorization: `Bearer ${token}` },
  });
  const body = status.json<Record<string, string>>();
  const answer = Buffer.from(body['respuesta-xml'] ?? '', 'base64').toString('utf8');
  return { state: body['ind-estado'], view: app.simulator.document(doc.clave)!, answer };
}

const daysAgo = (d: number) => new Date(Date.now() - d * 86400_000);

describe('acceptance with observations', () => {
  it('accepts a document sent late with -16, in a bare table after the preamble', async () => {
    const { state, view, answer } = await submit(daysAgo(5));
    expect(state).toBe('aceptado');
    expect(view.rows).toEqual([]);
    expect(view.observations.map((r) => r.code)).toEqual([-16]);
    const m = parseMensajeHacienda(answer);
    expect(m.mensaje).toBe(1);
    expect(m.estadoMensaje).toBe('Aceptado');
    expect(m.detalleMensaje).toBe(
      `${SANDBOX_PREAMBLE}\n\ncodigo, mensaje, fila, columna\n-16, "${RULE_TEXTS.issueDateLate}", 0, 0`,
    );
    expect(m.detalleMensaje).not.toMatch(/siguientes errores|\[/);
    const obs = observationsOf(answer);
    expect(obs.map((o) => o.code)).toEqual([-16]);
    expect(obs[0]!.readable.es).toMatch(/fuera del plazo/);
  });

  it('accepts a recent document clean; the window is the maxDocumentAgeMs knob', async () => {
    const clean = await submit(new Date(Date.now() - 60_000));
    expect(clean.state).toBe('aceptado');
    expect(clean.view.observations).toEqual([]);
    expect(parseMensajeHacienda(clean.answer).detalleMensaje).toBe(SANDBOX_PREAMBLE);
    expect(observationsOf(clean.answer)).toEqual([]);

    const knobs = app.simulator.knobs();
    try {
      app.simulator.configure({ maxDocumentAgeMs: 10 * 86400_000 });
      expect((await submit(daysAgo(5))).view.observations).toEqual([]);
      app.simulator.configure({ maxDocumentAgeMs: 0 });
      expect((await submit(new Date(Date.now() - 60_000))).view.observations.map((r) => r.code)).toEqual([
        -16,
      ]);
      app.simulator.configure({ maxDocumentAgeMs: 0, checkIssueDate: false });
      expect((await submit(daysAgo(5))).view.observations).toEqual([]);
    } finally {
      app.simulator.configure(knobs);
    }
  });

  it('adds -37 (emisor location) with observeLocation, after -16', async () => {
    const knobs = app.simulator.knobs();
    try {
      app.simulator.configure({ observeLocation: true });
      const { state, view, answer } = await submit(daysAgo(5));
      expect(state).toBe('aceptado');
      expect(view.observations.map((r) => [r.code, r.message])).toEqual([
        [-16, RULE_TEXTS.issueDateLate],
        [-37, RULE_TEXTS.emisorLocation],
      ]);
      expect(observationsOf(answer).map((o) => o.code)).toEqual([-16, -37]);
    } finally {
      app.simulator.configure(knobs);
    }
  });

  it('writes no observations into a rejection (forced -37): its rows are the reasons', async () => {
    const knobs = app.simulator.knobs();
    try {
      app.simulator.configure({ forcedRejectionRate: 1 });
      const { state, view, answer } = await submit(daysAgo(5));
      expect(state).toBe('rechazado');
      expect(view.rows.map((r) => r.code)).toEqual([-37]);
      expect(view.observations).toEqual([]);
      expect(parseMensajeHacienda(answer).detalleMensaje).not.toContain(RULE_TEXTS.issueDateLate);
      expect(observationsOf(answer)).toEqual([]);
    } finally {
      app.simulator.configure(knobs);
    }
  });
});
