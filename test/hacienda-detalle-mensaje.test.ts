// DetalleMensaje / MensajeHacienda parsing and readable reasons, on texts in Hacienda's real format
// (NOTES §7.5 and §7.9: sandbox preamble, bracketed table, unescaped quotes, one-line tables, free text).
import { describe, expect, it } from 'vitest';
import { parseDetalleMensaje, readObservations } from '../hacienda/detalle-mensaje.ts';
import { MensajeHaciendaParseError, parseMensajeHacienda } from '../hacienda/mensaje-hacienda.ts';
import {
  explainDetalleMensaje,
  explainErrorCause,
  explainMensajeHacienda,
  explainRow,
} from '../hacienda/rejection-reasons.ts';

const PREAMBLE =
  'Este comprobante fue aceptado en el ambiente de pruebas, por lo cual no tiene validez para fines tributarios';
const MSG_99 =
  'La numeración consecutiva del comprobante que se esta utilizando para este archivo XML ya existe en nuestras bases de datos.';
const MSG_37 =
  "Estimado obligado tributario los datos suministrados en provincia, cantón y distrito del 'emisor' no concuerdan con la información registrada en la Dirección General de Tributación, favor proceder actualizar sus datos.";

const twoRows =
  `${PREAMBLE}\n\nEl comprobante electrónico tiene los siguientes errores: \n\n[\ncodigo, mensaje, fila, columna\n` +
  `-99, "${MSG_99}", 0, 0\n-37, "${MSG_37}", 0, 0\n\n]`;

const xsdOrder =
  'El comprobante electrónico tiene los siguientes errores: \n\n[\ncodigo, mensaje, fila, columna\n' +
  `-1, "cvc-complex-type.2.4.a: Invalid content was found starting with element '{"https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica":CodigoComercial}'. One of '{"https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica":Codigo, "https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica":Cantidad}' is expected.", 2, 1573\n` +
  `-1, "cvc-datatype-valid.1.2.1: '' is not a valid value for 'decimal'.", 90, 26\n\n]`;

describe('parseDetalleMensaje', () => {
  it('reads the preamble and a multi-row table', () => {
    const p = parseDetalleMensaje(twoRows);
    expect(p.sandbox).toBe(true);
    expect(p.preamble).toBe(PREAMBLE);
    expect(p.hasTable).toBe(true);
    expect(p.rows).toEqual([
      { code: -99, message: MSG_99, line: 0, column: 0 },
      { code: -37, message: MSG_37, line: 0, column: 0 },
    ]);
    expect(p.raw).toBe(twoRows);
  });

  it('keeps commas and raw double quotes inside messages, with fila/columna', () => {
    const p = parseDetalleMensaje(xsdOrder);
    expect(p.sandbox).toBe(false);
    expect(p.rows).toHaveLength(2);
    expect(p.rows[0]?.code).toBe(-1);
    expect(p.rows[0]?.message).toMatch(
      /^cvc-complex-type\.2\.4\.a: .*":Codigo, "https:.*":Cantidad\}' is expected\.$/,
    );
    expect(p.rows[0]).toMatchObject({ line: 2, column: 1573 });
    expect(p.rows[1]).toEqual({
      code: -1,
      message: "cvc-datatype-valid.1.2.1: '' is not a valid value for 'decimal'.",
      line: 90,
      column: 26,
    });
  });

  it('parses a table printed on one line, with brackets inside the message', () => {
    const oneLine =
      "El comprobante electrónico tiene los siguientes errores: [ codigo, mensaje, fila, columna -1, \"cvc-enumeration-valid: Value 'False' is not facet-valid with respect to enumeration '[01, 02, 03, 04]'. It must be a value from the enumeration.\", 26, 39 ]";
    const p = parseDetalleMensaje(oneLine);
    expect(p.rows).toEqual([
      {
        code: -1,
        message:
          "cvc-enumeration-valid: Value 'False' is not facet-valid with respect to enumeration '[01, 02, 03, 04]'. It must be a value from the enumeration.",
        line: 26,
        column: 39,
      },
    ]);
  });

  it('reads free text after the "procesado" preamble variant', () => {
    const p = parseDetalleMensaje(
      'Este comprobante fue procesado en el ambiente de pruebas, por lo cual no tiene validez para fines tributarios.\n\nLa firma del comprobante electrónico no es válida',
    );
    expect(p.sandbox).toBe(true);
    expect(p.hasTable).toBe(false);
    expect(p.rows).toEqual([
      { code: null, message: 'La firma del comprobante electrónico no es válida', line: null, column: null },
    ]);
  });

  it('undoes JSON-escaped newlines and keeps blank lines between rows harmless', () => {
    const escaped =
      'El comprobante electrónico tiene los siguientes errores: \\n\\n[\\ncodigo, mensaje, fila, columna\\n\\n-1, \\"El tipo de documento no corresponde.\\", 0, 0\\n\\n]';
    const p = parseDetalleMensaje(escaped);
    expect(p.rows).toEqual([
      { code: -1, message: 'El tipo de documento no corresponde.', line: 0, column: 0 },
    ]);
  });

  it('yields no rows for an acceptance text', () => {
    const p = parseDetalleMensaje(PREAMBLE);
    expect(p.sandbox).toBe(true);
    expect(p.rows).toEqual([]);
  });
});

describe('real format variants', () => {
  const OBS_16 =
    'El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; con base en lo estipulado en el artículo 9 y 15 ambos de la resolución 48-2016';

  it('reads a bare table (no intro, no brackets) as the observations of an accepted document', () => {
    const text = `${PREAMBLE}\n\ncodigo, \n\tmensaje, fila, columna\n-16, "${OBS_16}", 0, 0\n-37, \n\t"${MSG_37}", 0, 0\n\n\t`;
    const rows = readObservations(text);
    expect(rows).toEqual([
      { code: -16, message: OBS_16, line: 0, column: 0 },
      { code: -37, message: MSG_37, line: 0, column: 0 },
    ]);
    expect(parseDetalleMensaje(text)).toMatchObject({ sandbox: true, hasTable: true, raw: text });
    expect(readObservations(PREAMBLE)).toEqual([]);
  });

  it('undoes the doubled quotes of v4.3-era rows', () => {
    const msg =
      "El resumen de la factura carece del monto total de mercancías gravados y cuenta con impuestos con código '01'";
    const rows = readObservations(` \n\ncodigo, mensaje, fila, columna\n-48, ""${msg}"", 0, 0\n`);
    expect(rows).toEqual([{ code: -48, message: msg, line: 0, column: 0 }]);
    expect(explainRow(rows[0]!)).toMatchObject({
      kind: 'mercancias-gravadas-falta',
      field: 'TotalMercanciasGravadas',
    });
  });

  it('never takes a preamble broken over two lines for the reason', () => {
    const text =
      'Este comprobante fue aceptado en el ambiente de\npruebas, por lo cual no tiene validez para fines tributarios\n\nEl comprobante electrónico tiene los siguientes errores:\n\n[\n\ncodigo, mensaje, fila, columna\n\n-1, "El tipo de documento no corresponde.", 0, 0\n\n]';
    const p = parseDetalleMensaje(text);
    expect(p.preamble).toBe(PREAMBLE);
    expect(p.rows).toEqual([
      { code: -1, message: 'El tipo de documento no corresponde.', line: 0, column: 0 },
    ]);
    const r = explainDetalleMensaje(text);
    expect(r.summary.es).not.toMatch(/ambiente de pruebas/);
    expect(r.items[0]?.kind).toBe('tipo-documento');
    // Pieces of a preamble split elsewhere are dropped too.
    expect(
      parseDetalleMensaje(
        'Este comprobante fue aceptado en el ambiente de pruebas,\n\npor lo cual no tiene validez para fines tributarios',
      ).rows,
    ).toEqual([]);
  });

  it('reads the amount in parentheses at the end of a row', () => {
    const r = explainRow({
      code: -45,
      message:
        'El monto del impuesto de la línea (2) no corresponde al valor de multiplicar el subtotal por la tarifa del impuesto. (258.27750)',
      line: 0,
      column: 0,
    });
    expect(r.kind).toBe('linea-impuesto');
    expect(r.readable.es).toBe(
      'El Monto del impuesto (Impuesto/Monto) de la línea 2 no es su base imponible por la Tarifa (Hacienda calculó 258.27750).',
    );
    const t = explainRow({
      code: -55,
      message:
        'El monto total del comprobante no coincide con la suma del total de venta neta y el total de impuestos (2825)',
      line: 0,
      column: 0,
    });
    expect(t).toMatchObject({ kind: 'total-comprobante', field: 'TotalComprobante' });
    expect(t.readable.en).toMatch(/\(Hacienda computed 2825\)\.$/);
  });

  it('reads a bracketed free-text message (v4.4)', () => {
    const p = parseDetalleMensaje(
      '[ La firma del comprobante electrónico no es válida (El XML fue modificado luego de haber sido firmado). ]',
    );
    expect(p.rows.map((r) => r.message)).toEqual([
      'La firma del comprobante electrónico no es válida (El XML fue modificado luego de haber sido firmado).',
    ]);
  });

  it("explains an accepted document's observations without calling it rejected", () => {
    const r = explainDetalleMensaje(`codigo, mensaje, fila, columna\n-16, "${OBS_16}", 0, 0`, {
      accepted: true,
    });
    expect(r.items.map((i) => [i.kind, i.field])).toEqual([['extemporaneo', 'FechaEmision']]);
    expect(r.summary.es).toMatch(/^Hacienda aceptó el comprobante con una observación: /);
    expect(r.summary.en).toMatch(/^Hacienda accepted the document with one remark: /);
    expect(`${r.summary.es} ${r.summary.en}`).not.toMatch(/rechaz|reject/i);
    expect(explainDetalleMensaje(PREAMBLE, { accepted: true }).summary.es).toBe(
      'Hacienda aceptó el comprobante.',
    );
  });
});

describe('explainErrorCause (X-Error-Cause of a refused request)', () => {
  it.each([
    [
      'El comprobante [50601011800310112345600100001010000000001199999999] ya fue recibido anteriormente',
      400,
      'duplicate-clave',
      'Clave',
    ],
    ['XML ya existe en nuestras bases de datos', 400, 'duplicate-clave', 'Clave'],
    [
      'No existe el recurso con Clave = [50601011800310112345600100001010000000001199999999]',
      404,
      'clave-unknown',
      'Clave',
    ],
    ['El campo fecha no es válido', 400, 'request-field', 'fecha'],
    [
      'El campo emisor.numeroIdentificacion no es válido',
      400,
      'request-field',
      'emisor.numeroIdentificacion',
    ],
    ['El cuerpo de la solicitud no es un objeto JSON', 400, 'request-body', 'comprobanteXml'],
  ])('explains "%s"', (cause, status, kind, field) => {
    const r = explainErrorCause(cause, status);
    expect(r.raw).toBe(cause);
    expect(r.items).toHaveLength(1);
    expect(r.items[0]).toMatchObject({ kind, field, message: cause });
    expect(r.items[0]!.readable.es).toContain(field);
    expect(r.items[0]!.readable.en).toContain(field);
    expect(r.summary.es).toMatch(/^Hacienda no recibió el comprobante: /);
    expect(r.summary.en).toMatch(/^Hacienda did not receive the document: /);
  });

  it('never shows an English cause as the Spanish reason, and explains it by its status', () => {
    // A body the gateway could not read: known, explained in both languages.
    const body = explainErrorCause(
      "Body cannot be empty when content-type is set to 'application/json'",
      400,
    );
    expect(body.items[0]!.kind).toBe('request-body');
    expect(body.summary.es).not.toMatch(/Body|empty/);
    // Unknown and English: its status speaks in Spanish, the English text only in English.
    const r = explainErrorCause('Unexpected failure while handling the submission', 400);
    expect(r.items[0]!.kind).toBeNull();
    expect(r.summary.es).toBe(
      'Hacienda no recibió el comprobante: Hacienda rechazó la solicitud de recepción (HTTP 400) sin procesar el comprobante.',
    );
    expect(r.summary.en).toContain('Cause given: "Unexpected failure');
    expect(r.raw).toBe('Unexpected failure while handling the submission');
    expect(explainErrorCause(null, 403).summary.es).toMatch(/no autorizó al usuario para este emisor/);
    expect(explainErrorCause('', 404).items[0]!.readable.en).toMatch(/HTTP 404/);
  });

  it('shows an unknown Spanish cause in its own words', () => {
    const r = explainErrorCause('El receptor del comprobante no es válido para este emisor', 400);
    expect(r.summary.es).toMatch(/Motivo indicado: El receptor del comprobante no es válido/);
  });
});

describe('explainDetalleMensaje', () => {
  it('translates -99 and -37 into Spanish and English with a fix, keeping the raw text', () => {
    const r = explainDetalleMensaje(twoRows);
    expect(r.raw).toBe(twoRows);
    expect(r.items.map((i) => i.kind)).toEqual(['duplicate-consecutivo', 'ubicacion']);
    expect(r.items[0]?.readable.es).toMatch(/NumeroConsecutivo ya fue usado/);
    expect(r.items[0]?.readable.en).toMatch(/NumeroConsecutivo was already used/);
    expect(r.items.map((i) => i.field)).toEqual(['NumeroConsecutivo', 'Emisor/Ubicacion']);
    expect(r.items[0]?.fix.en).toMatch(/next free NumeroConsecutivo/);
    expect(r.items[1]?.fix.es).toMatch(/Ubicacion/);
    expect(r.items[0]?.message).toBe(MSG_99);
    expect(r.summary.es).toMatch(/^Hacienda rechazó el comprobante: .*\(y 1 motivo más\)$/);
    expect(r.summary.en).toMatch(/\(and 1 more reason\)$/);
  });

  it('names the elements of schema errors and where they are', () => {
    const r = explainDetalleMensaje(xsdOrder);
    expect(r.items[0]?.kind).toBe('xsd-order');
    expect(r.items[0]?.readable.en).toBe(
      'Element CodigoComercial is out of order or not allowed there; expected Codigo, Cantidad (line 2, column 1573 of the signed XML).',
    );
    expect(r.items[1]?.kind).toBe('xsd-empty-decimal');
    expect(r.items[1]?.readable.es).toMatch(/campo numérico \(decimal\) está vacío \(línea 90, columna 26/);
  });

  it('explains the enumeration error with the allowed values', () => {
    const r = explainRow({
      code: -1,
      message:
        "cvc-enumeration-valid: Value 'False' is not facet-valid with respect to enumeration '[01, 02, 03, 04]'. It must be a value from the enumeration.",
      line: 26,
      column: 39,
    });
    expect(r.kind).toBe('xsd-enumeration');
    expect(r.fix.en).toBe('Use one of: 01, 02, 03, 04.');
  });

  it.each([
    ['La firma del comprobante electrónico no es válida', 'signature-invalid'],
    [
      'La firma del comprobante electrónico no es válida (El XML fue modificado luego de haber sido firmado).',
      'signature-modified',
    ],
    ['El contribuyente que firma la factura electronica no es el emisor', 'signer-not-emisor'],
    ['Error al comunicarse con el Signum One', 'signum-one'],
    ['El comprobante [50601] ya fue recibido anteriormente', 'duplicate-clave'],
    ['El tipo de documento no corresponde.', 'tipo-documento'],
  ])('recognises %s', (message, kind) => {
    const r = explainRow({ code: null, message, line: null, column: null });
    expect(r.kind).toBe(kind);
    expect(r.readable.es).not.toBe(message);
    expect(r.fix.es.length).toBeGreaterThan(10);
  });

  it('recognises -16 and -111 by code and text, pointing at goods vs services', () => {
    const k = (code: number, message: string) => explainRow({ code, message, line: 0, column: 0 });
    expect(k(-16, 'El archivo XML, fue enviado … de manera extemporánea').kind).toBe('extemporaneo');
    const t = k(
      -111,
      'El total de servicios gravados (TotalServGravados) no coincide con la suma de las líneas.',
    );
    expect(t.kind).toBe('totals');
    expect(t.field).toBe('TotalServGravados');
    expect(t.fix.en).toMatch(/service or goods/);
  });

  it('reads -53 as the net sale, and the clock rule of the simulator (-1) as the official time', () => {
    const k = (code: number, message: string) => explainRow({ code, message, line: 0, column: 0 });
    expect(k(-53, 'El TotalVentaNeta no concuerda con TotalVenta menos TotalDescuentos').kind).toBe(
      'total-venta-neta',
    );
    expect(k(-1, 'La fecha de emisión del comprobante es posterior a la hora oficial.').kind).toBe(
      'hora-oficial',
    );
  });

  it('does not explain a real code used with another text as its rule', () => {
    const r = explainRow({
      code: -54,
      message: 'La información de referencia 1 no es válida.',
      line: 0,
      column: 0,
    });
    expect(r.kind).toBeNull();
    const s = explainRow({
      code: -53,
      message: 'La fecha de emisión es posterior a la hora oficial.',
      line: 0,
      column: 0,
    });
    expect(s.kind).toBeNull();
  });

  it('falls back to the raw text for unknown messages', () => {
    const r = explainDetalleMensaje(
      'El comprobante electrónico tiene los siguientes errores: \n\n[\ncodigo, mensaje, fila, columna\n-205, "El receptor no está inscrito, revise.", 0, 0\n]',
    );
    expect(r.items[0]?.kind).toBeNull();
    expect(r.items[0]?.readable.es).toBe('El receptor no está inscrito, revise. (-205)');
    expect(r.items[0]?.readable.en).toBe('Hacienda reported (-205): "El receptor no está inscrito, revise."');
  });

  it("recognises a CABYS rejection by its key word, whatever Hacienda's code", () => {
    const r = explainDetalleMensaje(
      'El comprobante electrónico tiene los siguientes errores: \n\n[\ncodigo, mensaje, fila, columna\n-205, "El código CABYS no existe, revise.", 0, 0\n]',
    );
    expect(r.items[0]?.kind).toBe('cabys');
  });

  it('gives a summary even when Hacienda gives no reason', () => {
    const r = explainDetalleMensaje('');
    expect(r.items).toEqual([]);
    expect(r.summary.en).toMatch(/without giving a reason/);
  });
});

describe('parseMensajeHacienda', () => {
  const ns = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeHacienda';
  const mh = (mensaje: string, detalle: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<MensajeHacienda xmlns="${ns}"><Clave>50627091800011187076300200001010000000007100011154</Clave>` +
    `<NombreEmisor>Carlos Chacon Calvo</NombreEmisor><TipoIdentificacionEmisor>01</TipoIdentificacionEmisor>` +
    `<NumeroCedulaEmisor>111870763</NumeroCedulaEmisor><Mensaje>${mensaje}</Mensaje><EstadoMensaje>${mensaje === '1' ? 'Aceptado' : 'Rechazado'}</EstadoMensaje>` +
    `<DetalleMensaje>${detalle}</DetalleMensaje><MontoTotalImpuesto>287.61062</MontoTotalImpuesto><TotalFactura>2500.00000</TotalFactura>` +
    `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"/></MensajeHacienda>`;

  it('reads a rejection with its rows', () => {
    const escaped = twoRows.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const m = parseMensajeHacienda(mh('3', escaped));
    expect(m.accepted).toBe(false);
    expect(m.mensaje).toBe(3);
    expect(m.estadoMensaje).toBe('Rechazado');
    expect(m.nombreEmisor).toBe('Carlos Chacon Calvo');
    expect(m.nombreReceptor).toBeNull();
    expect(m.totalFactura).toBe('2500.00000');
    expect(m.signed).toBe(true);
    expect(m.detalleMensaje).toBe(twoRows);
    expect(m.detalle.rows.map((r) => r.code)).toEqual([-99, -37]);
    expect(explainMensajeHacienda(mh('3', escaped)).items).toHaveLength(2);
  });

  it('reads an acceptance', () => {
    const m = parseMensajeHacienda(mh('1', PREAMBLE));
    expect(m.accepted).toBe(true);
    expect(m.detalle.rows).toEqual([]);
  });

  it('refuses what is not a MensajeHacienda', () => {
    expect(() => parseMensajeHacienda('<FacturaElectronica/>')).toThrow(MensajeHaciendaParseError);
    expect(() => parseMensajeHacienda('not xml <')).toThrow(MensajeHaciendaParseError);
  });
});
