// A document followed to `aceptada` and booked, then checked the way every document-type test
// checks it: its XML against its own XSD (xmllint) and its signature (xmlsec1), and its journal
// entry balanced. Returns the invoice as the API shows it, the parsed XML, the entry's lines and
// `booked(role, side)`, the sum booked on the accounts of a role.
import { Decimal } from 'decimal.js';
import { expect } from 'vitest';
import { parseId } from '../../domain/ids.ts';
import { parseXml, type XmlElement } from '../../simulator/checks/xml-reader.ts';
import type { SchemaDocumentType } from '../../hacienda/xsd.ts';
import { api, type E2E } from './e2e.ts';
import { waitFor } from './wait.ts';
import { verifyWithXmlsec } from './xmlsec.ts';
import { validateXml } from './xsd.ts';

export interface AcceptedDocument {
  // The API's JSON, as the tests read it.
  inv: any;
  xml: string;
  root: XmlElement;
  lines: { role: string; code: string; debit: string; credit: string }[];
  booked(role: string, side?: 'credit' | 'debit'): string;
}

export async function acceptedDocument(
  e: E2E,
  key: string,
  id: string,
  kind: SchemaDocumentType,
  entryKind: string | null = 'invoice',
): Promise<AcceptedDocument> {
  let inv: any;
  await waitFor(
    async () => {
      inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, key)).json;
      if (inv.status === 'rechazada') throw new Error(JSON.stringify(inv.rejection_reason));
      const row = await e
        .db('invoices')
        .where({ id: parseId('invoice', id)! })
        .first('accounted_at');
      return inv.status === 'aceptada' && row.accountedAt !== null;
    },
    30_000,
    100,
    `document ${id} to be accepted and booked`,
  );
  const xml = (await api(e, 'GET', `/api/v1/invoices/${id}/xml`, key)).text;
  expect(await validateXml(kind, xml)).toEqual({ valid: true, errors: [] });
  expect((await verifyWithXmlsec(xml)).valid).toBe(true);
  const entry = e
    .db('journal_entries as j')
    .join('journal_lines as l', 'l.entry_id', 'j.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where({ 'j.invoice_id': parseId('invoice', id)! })
    .select('a.role', 'a.code', 'l.debit', 'l.credit');
  if (entryKind) void entry.where({ 'j.kind': entryKind });
  const lines = (await entry) as AcceptedDocument['lines'];
  const debit = lines.reduce((a, l) => a.plus(l.debit), new Decimal(0));
  const credit = lines.reduce((a, l) => a.plus(l.credit), new Decimal(0));
  expect(debit.toFixed(2)).toBe(credit.toFixed(2));
  const booked = (role: string, side: 'credit' | 'debit' = 'credit') =>
    lines
      .filter((l) => l.role === role)
      .reduce((a, l) => a.plus(l[side]), new Decimal(0))
      .toFixed(2);
  return { inv, xml, root: parseXml(xml), lines, booked };
}
