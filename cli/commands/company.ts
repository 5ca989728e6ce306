// `company create|list|show`: tenants from the command line. `--demo` fills sandbox-ready
// emisor data (location, activity, emails) so a demo company can issue at once.
import type { Command } from 'commander';
import {
  createCompany,
  credentialSummaries,
  getCompany,
  listCompanies,
  setEmailDelivery,
  type CompanyInput,
} from '../../db/queries/companies.ts';
import { companyObject } from '../../api/presenters/company.ts';
import { validateEmailDelivery } from '../../domain/company-setup.ts';
import { resolveIdentification } from '../../domain/identification.ts';
import { validateEmisorFields } from '../../domain/party-rules.ts';
import { PLANS } from '../../domain/scopes.ts';
import { CliError, output, parseIdArg, withContext } from '../context.ts';
import { registerCredentialCommands, setUpDemoCompany } from './credentials.ts';

interface CreateOpts {
  name: string;
  cedula: string;
  plan: string;
  idType?: string;
  legalName?: string;
  commercialName?: string;
  activityCode?: string;
  provincia?: string;
  canton?: string;
  distrito?: string;
  barrio?: string;
  otrasSenas?: string;
  phone?: string;
  email?: string[];
  rateLimit?: string;
  demo?: boolean;
  json?: boolean;
}

const DEMO_EMISOR = {
  activityCode: '620100',
  provincia: '1',
  canton: '01',
  distrito: '01',
  barrio: 'Barrio Amón',
  otrasSenas: 'Avenida 7, calles 3 y 5, edificio demo',
  phoneCountry: '506',
  phone: '22223333',
};

function check(value: string | undefined, re: RegExp, flag: string, rule: string): string | undefined {
  if (value === undefined) return undefined;
  if (!re.test(value)) throw new CliError(`${flag}: ${rule}, got "${value}"`);
  return value;
}

export function companyInputFromOptions(opts: CreateOpts): CompanyInput {
  if (!(PLANS as readonly string[]).includes(opts.plan))
    throw new CliError(`--plan must be one of ${PLANS.join(', ')}`);
  const ident = resolveIdentification(opts.cedula, opts.idType, { typeField: '--id-type' });
  if (!ident.ok) throw new CliError(`--cedula: ${ident.message}`);
  if (opts.name.trim().length < 3) throw new CliError('--name must have at least 3 characters');
  const legalName = opts.legalName ?? opts.name;
  if (legalName.length < 5 || legalName.length > 100)
    throw new CliError('--legal-name must have 5 to 100 characters');
  const demo = opts.demo ? DEMO_EMISOR : null;
  const emails = opts.email?.length ? opts.email : demo ? [`facturas+${ident.number}@demo.example`] : [];
  for (const e of emails)
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e) || e.length > 160) throw new CliError(`--email: invalid ${e}`);
  if (emails.length > 4) throw new CliError('--email: at most 4 addresses');
  const input: CompanyInput = {
    name: opts.name.trim(),
    plan: opts.plan,
    legalName: legalName.trim(),
    commercialName: opts.commercialName?.trim() ?? null,
    idType: ident.type,
    idNumber: ident.number,
    activityCode:
      check(opts.activityCode, /^\d{6}$/, '--activity-code', '6 digits') ?? demo?.activityCode ?? null,
    provincia: check(opts.provincia, /^[1-7]$/, '--provincia', 'one digit 1-7') ?? demo?.provincia ?? null,
    canton: check(opts.canton, /^\d{2}$/, '--canton', 'two digits') ?? demo?.canton ?? null,
    distrito: check(opts.distrito, /^\d{2}$/, '--distrito', 'two digits') ?? demo?.distrito ?? null,
    barrio: opts.barrio ?? demo?.barrio ?? null,
    otrasSenas: opts.otrasSenas ?? demo?.otrasSenas ?? null,
    phoneCountry: opts.phone ? '506' : (demo?.phoneCountry ?? null),
    phone: check(opts.phone, /^\d{8,20}$/, '--phone', '8 to 20 digits') ?? demo?.phone ?? null,
    emails,
    rateLimitPerSecond: opts.rateLimit
      ? Number(check(opts.rateLimit, /^\d+$/, '--rate-limit', 'a whole number'))
      : null,
    demo: Boolean(opts.demo),
  };
  // The Emisor's XSD facets and the territorial division, as the API checks a receptor's.
  const flags: Record<string, string> = {
    '/legal_name': '--legal-name',
    '/commercial_name': '--commercial-name',
    '/activity_code': '--activity-code',
    '/provincia': '--provincia',
    '/canton': '--canton',
    '/distrito': '--distrito',
    '/barrio': '--barrio',
    '/otras_senas': '--otras-senas',
    '/phone': '--phone',
  };
  const problems = validateEmisorFields(input);
  if (problems.length)
    throw new CliError(
      problems
        .map((p) => `${flags[p.path] ?? (p.path.startsWith('/emails') ? '--email' : p.path)}: ${p.message}`)
        .join('\n'),
    );
  return input;
}

export function registerCompanyCommands(program: Command): void {
  const company = program.command('company').description('Companies (tenants)');

  company
    .command('create')
    .description('Create a company')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--cedula <number>', 'emisor identification number')
    .requiredOption('--plan <plan>', PLANS.join('|'))
    .option(
      '--id-type <code>',
      'Nota 4 type: 01 física, 02 jurídica, 03 DIMEX, 04 NITE, 05, 06 (required for a 10-digit number)',
    )
    .option('--legal-name <name>', 'emisor legal name (defaults to --name)')
    .option('--commercial-name <name>', 'emisor commercial name')
    .option('--activity-code <code>', 'economic activity, 6 digits')
    .option('--provincia <code>')
    .option('--canton <code>')
    .option('--distrito <code>')
    .option('--barrio <text>')
    .option('--otras-senas <text>')
    .option('--phone <digits>')
    .option('--email <address...>', 'up to 4 emisor emails')
    .option('--rate-limit <n>', 'requests per second per key (overrides the plan default)')
    .option(
      '--demo',
      'fill sandbox-ready demo data (emisor location, certificate, sandbox credentials, services)',
    )
    .option('--json', 'print JSON')
    .action(async (opts: CreateOpts) => {
      const input = companyInputFromOptions(opts);
      await withContext(async (ctx) => {
        let created;
        try {
          created = await createCompany(ctx.db, input);
        } catch (err) {
          if ((err as { constraint?: string }).constraint === 'companies_id_number_key') {
            throw new CliError(`--cedula: a company with identification ${input.idNumber} already exists`);
          }
          throw err;
        }
        if (opts.demo) await setUpDemoCompany(ctx, created.id);
        const obj = companyObject(created, false, await credentialSummaries(ctx.db, created.id));
        output(opts.json, obj, () => `Created company ${obj.id} (${obj.plan})`);
      });
    });

  company
    .command('list')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withContext(async ({ db }) => {
        const rows = await listCompanies(db);
        const objs = await Promise.all(
          rows.map(async (c) => companyObject(c, false, await credentialSummaries(db, c.id))),
        );
        output(
          opts.json,
          objs,
          () => objs.map((c) => `${c.id}  ${c.plan.padEnd(9)}  ${c.name}`).join('\n') || 'no companies',
        );
      });
    });

  company
    .command('show')
    .requiredOption('--company <id>', 'company id')
    .option('--json', 'print JSON')
    .action(async (opts: { company: string; json?: boolean }) => {
      await withContext(async ({ db }) => {
        const c = await getCompany(db, parseIdArg('company', opts.company, '--company'));
        if (!c) throw new CliError(`--company: no company ${opts.company}`);
        const obj = companyObject(c, false, await credentialSummaries(db, c.id));
        output(opts.json, obj, () => JSON.stringify(obj, null, 2));
      });
    });

  company
    .command('email')
    .description('Email accepted documents to their receptor (PDF, signed XML, Hacienda answer)')
    .requiredOption('--company <id>', 'company id')
    .option('--on', 'email every accepted document to its receptor')
    .option('--off', 'do not email accepted documents (resends through the API still work)')
    .option('--reply-to <address>', "replies go here (default: the emisor's first email)")
    .option('--bcc <address...>', 'blind copies of every email (up to 4); --bcc none clears them')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        company: string;
        on?: boolean;
        off?: boolean;
        replyTo?: string;
        bcc?: string[];
        json?: boolean;
      }) => {
        if (opts.on && opts.off) throw new CliError('--on and --off exclude each other');
        const bcc = opts.bcc?.length === 1 && opts.bcc[0] === 'none' ? [] : opts.bcc;
        const problems = validateEmailDelivery({
          ...(opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {}),
          ...(bcc !== undefined ? { bcc } : {}),
        });
        if (problems.length)
          throw new CliError(
            problems
              .map((p) => `${p.path.startsWith('/bcc') ? '--bcc' : '--reply-to'}: ${p.message}`)
              .join('\n'),
          );
        await withContext(async ({ db }) => {
          const id = parseIdArg('company', opts.company, '--company');
          if (!(await getCompany(db, id))) throw new CliError(`--company: no company ${opts.company}`);
          await setEmailDelivery(db, id, {
            ...(opts.on ? { enabled: true } : opts.off ? { enabled: false } : {}),
            ...(opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {}),
            ...(bcc !== undefined ? { bcc } : {}),
          });
          const c = (await getCompany(db, id))!;
          const obj = companyObject(c, false, await credentialSummaries(db, c.id)).email_delivery;
          output(opts.json, obj, () => JSON.stringify(obj, null, 2));
        });
      },
    );

  registerCredentialCommands(company);
}
