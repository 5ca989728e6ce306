// The simulator answers with Hacienda's own codes and sentences where real answers show them
// (hacienda/SOURCES.md): -45, -51, -54, -55 in Hacienda's words with the amount in parentheses, -78
// for a consecutivo without its structure, -110 for taxed goods without TotalMercanciasGravadas,
// and -1 for its own rules; every row it writes is explained by the service's catalogue with the
// field to fix. Its rows never reuse a real code for another rule.
import { describe, expect, it } from 'vitest';
import { explainRow } from '../hacienda/rejection-reasons.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { checkClave } from '../simulator/checks/clave.ts';
import { HACIENDA_TEXTS, TOTALS_CODES } from '../simulator/checks/rule-texts.ts';
import { checkTotals } from '../simulator/checks/totals.ts';
import type { Row } from '../simulator/checks/verdict.ts';
import { parseXml } from '../simulator/checks/xml-reader.ts';
import { testFactura } from './helpers/documents.ts';

const doc = testFactura({ number: 7 });
const xml = buildComprobanteXml('FacturaElectronica', doc);
const set = (text: string, element: string, value: string) => {
  const out = text.replace(new RegExp(`<${element}>[^<]*<`), `<${element}>${value}<`);
  if (out === text) throw new Error(`no ${element}`);
  return out;
};
const rowsOf = (text: string) => checkTotals(parseXml(text));

/** Every row explained by a catalogue entry, naming its field in both languages. */
function expectExplained(rows: Row[]) {
  for (const row of rows) {
    const item = explainRow(row);
    expect({ row: row.message, kind: item.kind }).not.toEqual({ row: row.message, kind: null });
    expect(item.field, row.message).toBeTruthy();
    for (const lang of ['es', 'en'] as const)
      expect(`${item.readable[lang]} ${item.fix[lang]}`, row.message).toContain(item.field!);
  }
}

describe("the simulator's totals speak Hacienda's codes", () => {
  it('accepts the fixture as built', () => {
    expect(rowsOf(xml)).toEqual([]);
  });

  it('-54 TotalImpuesto and -55 TotalComprobante, in Hacienda words', () => {
    const total = /<TotalImpuesto>([^<]*)</.exec(xml)![1]!;
    const rows = rowsOf(set(xml, 'TotalImpuesto', (Number(total) + 1).toFixed(5)));
    expect(rows.map((r) => [r.code, r.message])).toEqual([
      [-54, HACIENDA_TEXTS.totalImpuesto],
      [
        -55,
        expect.stringMatching(
          /^El monto total del comprobante no coincide con la suma del total de venta neta y el total de impuestos \(\d+\.\d{5}\)$/,
        ),
      ],
    ]);
    expectExplained(rows);
    expect(explainRow(rows[1]!).readable.es).toMatch(/TotalComprobante .*Hacienda calculó \d+\.\d{5}/);
  });

  it('-45 a line tax, with the line and the amount Hacienda computed', () => {
    const monto = /<Impuesto>[\s\S]*?<Monto>([^<]*)</.exec(xml)![1]!;
    const wrong = xml.replace(`<Monto>${monto}</Monto>`, `<Monto>${(Number(monto) + 1).toFixed(5)}</Monto>`);
    const rows = rowsOf(wrong).filter((r) => r.code === -45);
    expect(rows).toEqual([
      {
        code: -45,
        message: HACIENDA_TEXTS.lineTax('1', Number(monto).toFixed(5)),
        line: 0,
        column: 0,
      },
    ]);
    expect(explainRow(rows[0]!)).toMatchObject({ kind: 'linea-impuesto', field: 'Impuesto/Monto' });
    expect(explainRow(rows[0]!).readable.en).toContain(`of line 1 `);
    expectExplained(rowsOf(wrong));
  });

  it('-51 TotalVenta against its buckets, -53 TotalVentaNeta, -44 a line SubTotal', () => {
    const venta = /<TotalVenta>([^<]*)</.exec(xml)![1]!;
    const rows = rowsOf(set(xml, 'TotalVenta', (Number(venta) + 1).toFixed(5)));
    expect(rows.map((r) => r.code)).toEqual(expect.arrayContaining([-51, -53]));
    expect(rows.find((r) => r.code === -51)?.message).toBe(
      HACIENDA_TEXTS.totalVenta(Number(venta).toFixed(5)),
    );
    expectExplained(rows);
    const sub = /<SubTotal>([^<]*)</.exec(xml)![1]!;
    const line = rowsOf(set(xml, 'SubTotal', (Number(sub) + 1).toFixed(5)));
    expect(line.map((r) => r.code)).toContain(-44);
    expectExplained(line);
  });

  it('-110 taxed goods without TotalMercanciasGravadas', () => {
    const goods = /<TotalMercanciasGravadas>[^<]*<\/TotalMercanciasGravadas>/.exec(xml)?.[0];
    expect(goods).toBeDefined(); // the fixture sells taxed goods
    const rows = rowsOf(xml.replace(goods!, ''));
    expect(rows.map((r) => [r.code, r.message])).toContainEqual([
      -110,
      HACIENDA_TEXTS.mercanciasGravadasMissing,
    ]);
    expectExplained(rows);
  });

  it('uses each real code for one field only', () => {
    const byCode = new Map<number, string[]>();
    for (const [field, c] of Object.entries(TOTALS_CODES)) byCode.set(c, [...(byCode.get(c) ?? []), field]);
    byCode.delete(-111); // the goods or the services gravados total: one check, two sides
    for (const fields of byCode.values()) expect(fields).toHaveLength(1);
  });
});

describe('the consecutivo structure (-78)', () => {
  const request = {
    clave: doc.clave,
    emisor: { tipoIdentificacion: '02', numeroIdentificacion: '3101123456' },
  };
  it('refuses a consecutivo of an unknown type or number zero with Hacienda -78 text', () => {
    for (const bad of [
      doc.consecutivo.slice(0, 8) + '00' + doc.consecutivo.slice(10),
      doc.consecutivo.slice(0, 10) + '0000000000',
    ]) {
      const text = set(
        set(xml, 'NumeroConsecutivo', bad),
        'Clave',
        doc.clave.slice(0, 21) + bad + doc.clave.slice(41),
      );
      const rows = checkClave(
        parseXml(text),
        { ...request, clave: doc.clave.slice(0, 21) + bad + doc.clave.slice(41) },
        '01',
      );
      const structure = rows.filter((r) => r.code === -78);
      expect(structure).toHaveLength(1);
      expect(structure[0]!.message).toMatch(/^La numeración consecutiva no cumple con la estructura/);
      expect(explainRow(structure[0]!)).toMatchObject({
        kind: 'consecutivo-estructura',
        field: 'NumeroConsecutivo',
      });
    }
  });
});
