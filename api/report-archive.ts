// The month's archive (GET /api/v1/reports/monthly/archive) as a ZIP streamed while it is made:
// documents are read a page at a time (db/queries/reports.ts) and the next page is read only once
// the ZIP has taken the entries of this one (archiver emits `entry` as it writes each, and stops
// when the client reads slowly), so a month of any size never sits whole in memory.
//   emitidos/<clave>.xml            the signed comprobante, byte for byte as stored
//   emitidos/<clave>-respuesta.xml  Hacienda's answer (MensajeHacienda)
//   emitidos/<clave>.pdf            the representación gráfica (the cached copy, or rendered now)
//   recibidos/<clave>.xml           the supplier's signed document, as received
//   recibidos/<clave>-mensaje-receptor.xml, recibidos/<clave>-respuesta.xml: the company's answer and
//                                   Hacienda's verdict on it, when there are
//   resumen.csv                     the month's report (es-CR CSV)
import type { ZipArchive } from 'archiver';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/index.ts';
import type { Tenant } from '../db/queries/clients.ts';
import { monthDocumentsPage, monthReceivedPage, type MonthRange } from '../db/queries/reports.ts';
import type { MonthlyReport } from '../domain/monthly-report.ts';
import { invoicePdf } from '../jobs/invoice-pdf.ts';
import { monthlyReportCsv } from './presenters/monthly-report.ts';

const PAGE = 50;

interface ArchiveJob {
  db: Knex;
  config: Config;
  tenant: Tenant;
  range: MonthRange;
  report: MonthlyReport;
  log: FastifyBaseLogger;
}

/** Appends entries and waits until the ZIP has written every one appended so far. */
function writer(zip: ZipArchive) {
  let appended = 0;
  let written = 0;
  let wake: (() => void) | null = null;
  zip.on('entry', () => {
    written += 1;
    if (written === appended) wake?.();
  });
  return {
    add(name: string, data: Buffer | string) {
      appended += 1;
      zip.append(data, { name, date: new Date(0) });
    },
    drained: () =>
      written === appended
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            wake = resolve;
          }),
  };
}

async function addIssued(job: ArchiveJob, out: ReturnType<typeof writer>): Promise<void> {
  let after = 0;
  for (;;) {
    const page = await monthDocumentsPage(job.db, job.tenant, job.range, after, PAGE);
    for (const { invoice, signedXml, responseXml } of page) {
      const clave = invoice.clave!;
      if (signedXml) out.add(`emitidos/${clave}.xml`, signedXml);
      if (responseXml) out.add(`emitidos/${clave}-respuesta.xml`, responseXml);
      try {
        out.add(`emitidos/${clave}.pdf`, (await invoicePdf(job.db, job.config, invoice)).pdf);
      } catch (err) {
        job.log.warn({ err, invoiceId: invoice.id }, 'archive: PDF not made');
      }
      await out.drained();
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.invoice.id;
  }
}

async function addReceived(job: ArchiveJob, out: ReturnType<typeof writer>): Promise<void> {
  let after = 0;
  for (;;) {
    const page = await monthReceivedPage(job.db, job.tenant, job.range, after, PAGE);
    for (const r of page) {
      out.add(`recibidos/${r.clave}.xml`, r.signedXml);
      if (r.answerSignedXml) out.add(`recibidos/${r.clave}-mensaje-receptor.xml`, r.answerSignedXml);
      if (r.answerResponseXml) out.add(`recibidos/${r.clave}-respuesta.xml`, r.answerResponseXml);
      await out.drained();
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

/** The archive as a readable stream; a failure half-way ends it with an error (a truncated ZIP). */
export async function monthArchive(job: ArchiveJob): Promise<ZipArchive> {
  // Loaded on the first archive asked for, like exceljs for spreadsheets.
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const out = writer(zip);
  void (async () => {
    out.add('resumen.csv', monthlyReportCsv(job.report));
    await addIssued(job, out);
    await addReceived(job, out);
    await zip.finalize();
  })().catch((err: unknown) => {
    job.log.error({ err }, 'archive: stopped');
    zip.destroy(err as Error);
  });
  return zip;
}
