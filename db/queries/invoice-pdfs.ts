// The cache of rendered PDFs (see the invoice_pdfs migration): a copy is served only for the
// state key it was rendered with; storing replaces whatever copy the invoice had.
import type { Knex } from 'knex';

export async function getCachedPdf(db: Knex, invoiceId: number, stateKey: string): Promise<Buffer | null> {
  const row = (await db('invoice_pdfs').where({ invoiceId, stateKey }).first('pdf')) as
    { pdf: Buffer } | undefined;
  return row?.pdf ?? null;
}

export async function storeCachedPdf(
  db: Knex,
  invoiceId: number,
  stateKey: string,
  pdf: Buffer,
): Promise<void> {
  await db('invoice_pdfs')
    .insert({ invoiceId, stateKey, pdf, renderedAt: db.fn.now() })
    .onConflict('invoice_id')
    .merge(['state_key', 'pdf', 'rendered_at']);
}
