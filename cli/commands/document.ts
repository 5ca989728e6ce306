// `document build`: prints the XML the service would send for an invoice body (the same JSON as
// POST /api/v1/invoices, shape A or B), signed with the company's key when asked. Nothing is
// recorded: the consecutivo shown is the next one of its document type's series, not reserved;
// the XML is laid out as the type's descriptor says (domain/document-types/).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Knex } from 'knex';
import { Client, type Company } from '../../db/models/index.ts';
import { getCompany } from '../../db/queries/companies.ts';
import { missingEmisorData, prepareInvoice } from '../../db/queries/invoice-prepare.ts';
import type { InvoiceRow, PreparedInvoice } from '../../db/queries/invoices.ts';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import { DomainValidationError } from '../../domain/errors.ts';
import { parseInvoiceRequest } from '../../domain/invoice-request.ts';
import { createHaciendaAccess } from '../../jobs/context.ts';
import { SchemaViolationError } from '../../hacienda/xsd-compiled.ts';
import { buildInvoiceXml, facturaDocument } from '../../jobs/invoice-document.ts';
import { CliError, parseIdArg, parseMode, withContext } from '../context.ts';

interface BuildOptions {
  input: string;
  company: string;
  mode: string;
  sign?: boolean;
}

/** The invoice body of `--input`: JSON with a lines array. */
function readBody(input: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(input, 'utf8'));
  } catch (err) {
    throw new CliError(`--input: cannot read JSON from ${input}: ${(err as Error).message}`);
  }
  if (!body || typeof body !== 'object' || !Array.isArray((body as { lines?: unknown }).lines)) {
    throw new CliError('--input: expected an invoice body with a lines array');
  }
  return body as Record<string, unknown>;
}

const problems = (errs: { path: string; message: string }[]) =>
  errs.map((e) => `  ${e.path}: ${e.message}`).join('\n');

/** The company (able to issue) and the body prepared as the API would, before numbering. */
async function prepareBody(db: Knex, opts: BuildOptions, body: Record<string, unknown>, livemode: boolean) {
  const companyId = parseIdArg('company', opts.company, '--company');
  const company = await getCompany(db, companyId);
  if (!company) throw new CliError(`--company: no company ${opts.company}`);
  const missing = missingEmisorData(company);
  if (missing.length) throw new CliError(`the company cannot issue yet; missing: ${missing.join(', ')}`);
  const parsed = parseInvoiceRequest(body);
  if (!parsed.ok) throw new CliError(`invalid invoice:\n${problems(parsed.errors)}`);
  const tenant = { companyId, livemode };
  try {
    return { company, tenant, prepared: await prepareInvoice(db, tenant, company, parsed.value) };
  } catch (err) {
    if (err instanceof DomainValidationError) throw new CliError(`invalid invoice:\n${problems(err.errors)}`);
    throw err;
  }
}

/** The document as if numbered now: the next consecutivo of its type's series, and its clave. */
async function unreservedRow(
  db: Knex,
  company: Company,
  tenant: { companyId: number; livemode: boolean },
  prepared: PreparedInvoice,
  now: Date,
): Promise<InvoiceRow> {
  const { docType, branch, terminal } = prepared;
  const series = await db('numbering_series')
    .where({ ...tenant, docType, branch, terminal })
    .first('last_number');
  const number = Number(series?.lastNumber ?? 0) + 1;
  const consecutivo = buildConsecutivo({ branch, terminal, docType, number });
  const clave = buildClave({
    date: now,
    emisorId: company.idNumber,
    consecutivo,
    situacion: '1',
    securityCode: randomSecurityCode(),
  });
  return {
    id: 0,
    ...tenant,
    ...prepared,
    clave,
    consecutivo,
    issuedAt: now,
    summary: prepared.totals,
  } as unknown as InvoiceRow;
}

async function build(opts: BuildOptions): Promise<void> {
  const body = readBody(opts.input);
  const livemode = parseMode(opts.mode);
  await withContext(async ({ db, config }) => {
    const { company, tenant, prepared } = await prepareBody(db, opts, body, livemode);
    const now = new Date();
    const row = await unreservedRow(db, company, tenant, prepared, now);
    const client =
      prepared.clientId === null
        ? null
        : ((await Client.query(db)
            .findById(prepared.clientId)
            .withGraphFetched('addresses(ordered)')
            .modifiers({ ordered: (b) => b.orderBy('position') })) ?? null);
    let xml: string;
    try {
      xml = await buildInvoiceXml(facturaDocument(config, row, company, client), config.xsdDir);
    } catch (err) {
      if (err instanceof SchemaViolationError) throw new CliError(err.message);
      throw err;
    }
    if (!opts.sign) {
      process.stdout.write(xml);
      return;
    }
    const signer = await createHaciendaAccess(db, config)
      .signer(tenant.companyId, livemode)
      .catch((err: unknown) => {
        throw new CliError(`--sign: ${(err as Error).message}`);
      });
    process.stdout.write(await signer.sign(xml, { signingTime: now }));
  });
}

export function registerDocumentCommands(program: Command): void {
  const document = program.command('document').description('Hacienda documents');
  document
    .command('build')
    .description(
      'Print the XML of an invoice body (POST /api/v1/invoices JSON), laid out as its document_type says',
    )
    .requiredOption('--input <file>', 'JSON file with the invoice body (shape A or B)')
    .requiredOption('--company <id>', 'company id')
    .option('--mode <mode>', 'test or live (whose clients, services and key to use)', 'test')
    .option('--sign', "sign with the company's key (XAdES-EPES)")
    .action(build);
}
