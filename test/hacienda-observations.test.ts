// Hacienda's observations on accepted documents (hacienda/observations.ts): the bare
// `codigo, mensaje, fila, columna` table of a Mensaje 1 answer, as real answers carry it
// (CRLibre/API_Hacienda #50, CRLibre/fe-hacienda-cr-odoo #63), read into coded rows with their
// Spanish and English reading; a rejection has none.
import { describe, expect, it } from 'vitest';
import { receivedDocumentObject } from '../db/received-document-object.ts';
import type { PublicReceivedDocumentRow } from '../db/queries/received-documents.ts';
import { readObservations } from '../hacienda/detalle-mensaje.ts';
import { MensajeHaciendaParseError, parseMensajeHacienda } from '../hacienda/mensaje-hacienda.ts';
import { mayHoldObservations, observationOf, observationsOf } from '../hacienda/observations.ts';

const PREAMBLE =
  'Este comprobante fue aceptado en el ambiente de pruebas, por lo cual no tiene validez para fines tributarios';
const MSG_16 =
  'El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; con base en lo estipulado en el artículo 9 y 15 ambos de la resolución 48-2016';
const MSG_37 =
  "Estimado obligado tributario los datos suministrados en provincia, cantón y distrito del 'emisor' no concuerdan con la información registrada en la Dirección General de Tributación, favor proceder actualizar sus datos.";

const mensaje = (mensajeCode: 1 | 3, detalle: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<MensajeHacienda xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeHacienda">
  <Clave>50601012600310123456700100001010000000001100000001</Clave>
  <NombreEmisor>Emisor S.A.</NombreEmisor>
  <TipoIdentificacionEmisor>02</TipoIdentificacionEmisor>
  <NumeroCedulaEmisor>3101123456</NumeroCedulaEmisor>
  <Mensaje>${mensajeCode}</Mensaje>
  <DetalleMensaje>${detalle.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</DetalleMensaje>
  <TotalFactura>10735.0</TotalFactura>
</MensajeHacienda>`;

describe('readObservations', () => {
  it('reads the bare table of a sandbox acceptance (no intro sentence, no brackets)', () => {
    // As in CRLibre/API_Hacienda #50: the preamble, a blank line, the header and one row.
    const text = `${PREAMBLE}\n\ncodigo, mensaje, fila, columna\n-16, "${MSG_16}", 0, 0\n`;
    expect(readObservations(text)).toEqual([{ code: -16, message: MSG_16, line: 0, column: 0 }]);
  });

  it('reads several bare rows, with commas and quotes inside the messages', () => {
    const text = `codigo, mensaje, fila, columna\n-16, "${MSG_16}", 0, 0\n-37, "${MSG_37}", 0, 0`;
    expect(readObservations(text).map((r) => [r.code, r.message])).toEqual([
      [-16, MSG_16],
      [-37, MSG_37],
    ]);
  });

  it('reads a bracketed table, doubled quotes, CRLF and JSON-escaped newlines alike', () => {
    const bracketed = `${PREAMBLE}\r\n\r\n[\r\ncodigo, mensaje, fila, columna\r\n-37, "${MSG_37}", 0, 0\r\n\r\n]`;
    expect(readObservations(bracketed).map((r) => r.code)).toEqual([-37]);
    const doubled = `codigo, mensaje, fila, columna\n-16, ""${MSG_16}"", 0, 0`;
    expect(readObservations(doubled)).toEqual([{ code: -16, message: MSG_16, line: 0, column: 0 }]);
    const escaped = `${PREAMBLE}\\n\\ncodigo, mensaje, fila, columna\\n-16, \\"${MSG_16}\\", 0, 0`;
    expect(readObservations(escaped).map((r) => r.message)).toEqual([MSG_16]);
  });

  it('finds nothing in an acceptance without a table', () => {
    expect(readObservations(PREAMBLE)).toEqual([]);
    expect(readObservations('Este comprobante fue aceptado.')).toEqual([]);
    expect(readObservations('')).toEqual([]);
  });
});

describe('observationsOf', () => {
  it('explains the observations of an accepted answer in Spanish and English', () => {
    const xml = mensaje(
      1,
      `${PREAMBLE}\n\ncodigo, mensaje, fila, columna\n-16, "${MSG_16}", 0, 0\n-37, "${MSG_37}", 0, 0`,
    );
    const obs = observationsOf(xml);
    expect(obs.map((o) => o.code)).toEqual([-16, -37]);
    expect(obs[0]!.message).toBe(MSG_16);
    expect(obs[0]!.readable.es).toMatch(/fuera del plazo/);
    expect(obs[0]!.readable.en).toMatch(/after the allowed period/);
    expect(obs[1]!.readable.es).toMatch(/provincia, cantón y distrito del emisor/);
    for (const o of obs) expect(`${o.readable.es} ${o.fix.es}`).not.toMatch(/rechaz/i);
  });

  it('keeps an unknown observation in Hacienda’s words, without asking for a corrected document', () => {
    const xml = mensaje(1, 'codigo, mensaje, fila, columna\n-999, "Observación nueva de Hacienda", 0, 0');
    const [o] = observationsOf(xml);
    expect(o).toMatchObject({ code: -999, message: 'Observación nueva de Hacienda' });
    expect(o!.readable.es).toContain('Observación nueva de Hacienda');
    expect(o!.fix.es).toMatch(/fue aceptado/);
  });

  it('has none for a clean acceptance, and none for a rejection (its rows are the reasons)', () => {
    expect(observationsOf(mensaje(1, PREAMBLE))).toEqual([]);
    const rejected = mensaje(
      3,
      `${PREAMBLE}\n\nEl comprobante electrónico tiene los siguientes errores: \n\n[\ncodigo, mensaje, fila, columna\n-37, "${MSG_37}", 0, 0\n\n]`,
    );
    expect(observationsOf(rejected)).toEqual([]);
    // An answer that cannot be read has none either (the acceptance stands on ind-estado).
    expect(observationsOf('<not-xml')).toEqual([]);
    expect(observationsOf('<Other/>')).toEqual([]);
  });
});

/** observationsOf without its shortcut: the whole answer parsed, as every answer once was. */
function parsedObservations(xml: string) {
  try {
    const answer = parseMensajeHacienda(xml);
    return answer.accepted ? readObservations(answer.detalleMensaje).map(observationOf) : [];
  } catch (err) {
    if (err instanceof MensajeHaciendaParseError) return [];
    throw err;
  }
}

describe('an answer that cannot carry observations is not parsed', () => {
  const rows = `codigo, mensaje, fila, columna\n-16, "${MSG_16}", 0, 0`;
  const prefixed = mensaje(1, PREAMBLE)
    .replace('<MensajeHacienda xmlns=', '<mh:MensajeHacienda xmlns:mh=')
    .replace(/<(\/?)(\w+)>/g, '<$1mh:$2>')
    .replace('</MensajeHacienda>', '</mh:MensajeHacienda>');
  const cases: [string, string, boolean][] = [
    ['a clean sandbox acceptance', mensaje(1, PREAMBLE), false],
    ['a plain acceptance', mensaje(1, 'Este comprobante fue aceptado.'), false],
    ['an empty DetalleMensaje', mensaje(1, ''), false],
    ['a prefixed clean acceptance', prefixed, false],
    ['a rejection without a table', mensaje(3, 'La firma del comprobante electrónico no es válida'), false],
    ['an acceptance with rows', mensaje(1, `${PREAMBLE}\n\n${rows}`), true],
    ['rows JSON-escaped', mensaje(1, rows.replace(/\n/g, '\\n').replace(/"/g, '\\"')), true],
    [
      'rows with the quotes as references',
      mensaje(1, rows).replace(/"(?=[^<]*<\/DetalleMensaje>)/g, '&quot;'),
      true,
    ],
    [
      'rows in CDATA',
      mensaje(1, '').replace(
        '<DetalleMensaje></DetalleMensaje>',
        `<DetalleMensaje><![CDATA[${rows}]]></DetalleMensaje>`,
      ),
      true,
    ],
    [
      'a comment holding a DetalleMensaje',
      mensaje(1, rows).replace('<Clave>', `<!-- <DetalleMensaje>x</DetalleMensaje> --><Clave>`),
      true,
    ],
    [
      'an empty element',
      mensaje(1, '').replace('<DetalleMensaje></DetalleMensaje>', '<DetalleMensaje/>'),
      true,
    ],
    [
      'two DetalleMensaje',
      mensaje(1, PREAMBLE).replace(
        '<TotalFactura>',
        `<DetalleMensaje>${rows.replace(/</g, '&lt;')}</DetalleMensaje><TotalFactura>`,
      ),
      true,
    ],
    ['a DetalleMensaje naming itself before its rows', mensaje(1, `Vea DetalleMensaje:\n${rows}`), true],
    [
      'an element inside DetalleMensaje',
      mensaje(1, '').replace(
        '<DetalleMensaje></DetalleMensaje>',
        `<DetalleMensaje>x<b/>${rows.replace(/</g, '&lt;')}</DetalleMensaje>`,
      ),
      true,
    ],
    [
      'an attribute on DetalleMensaje',
      mensaje(1, PREAMBLE).replace('<DetalleMensaje>', '<DetalleMensaje xml:space="preserve">'),
      true,
    ],
  ];
  for (const [what, xml, may] of cases)
    it(`${what}: ${may ? 'parsed' : 'skipped'}, with the observations the whole parse finds`, () => {
      expect(mayHoldObservations(xml)).toBe(may);
      expect(observationsOf(xml)).toEqual(parsedObservations(xml));
    });

  it('finds the rows behind references and in CDATA', () => {
    for (const [what, xml] of cases.filter(([w]) => /references|CDATA/.test(w)))
      expect(
        observationsOf(xml).map((o) => o.code),
        what,
      ).toEqual([-16]);
  });
});

describe('a received document answer’s observations', () => {
  it('are shown as answer.warnings, [] when none', () => {
    const xml = mensaje(1, `${PREAMBLE}\n\ncodigo, mensaje, fila, columna\n-16, "${MSG_16}", 0, 0`);
    const base = {
      id: 7,
      issuedAt: new Date('2026-11-20T10:00:00Z'),
      createdAt: new Date(),
      updatedAt: new Date(),
      totalTax: '130.00000',
      total: '1130.00000',
      answerResult: 'accepted',
      answerStatus: 'aceptada',
      answerHaciendaStatus: 'aceptado',
      answerIvaCredit: null,
      answerExpense: null,
      answeredAt: null,
      answerRequestedAt: null,
      answerSignedAt: null,
      answerSubmittedAt: null,
    } as unknown as PublicReceivedDocumentRow;
    const warned = receivedDocumentObject({ ...base, answerWarnings: observationsOf(xml) });
    expect(warned.answer!.warnings.map((w) => [w.code, w.message])).toEqual([[-16, MSG_16]]);
    expect(warned.answer!.warnings[0]!.readable.en).toMatch(/after the allowed period/);
    expect(receivedDocumentObject({ ...base, answerWarnings: [] }).answer!.warnings).toEqual([]);
  });
});
