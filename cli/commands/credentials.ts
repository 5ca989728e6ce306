// `company set-certificate` and `company set-hacienda-credentials`: a company's .p12 (read with
// its PIN, legacy encodings included) and its Hacienda API user, sealed with SECRETS_KEY.
// Also the --demo set-up: a sandbox test certificate carrying the emisor's identification the
// way Hacienda's certificates do, sandbox credentials for the simulator, and two services.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { getCompany } from '../../db/queries/companies.ts';
import { createService } from '../../db/queries/services.ts';
import { openCompanyP12, SigningKeyError, type SigningMaterial } from '../../hacienda/signing-key.ts';
import { storeHaciendaCredentials, storeSigningMaterial } from '../../operations/company-credentials.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';
import { CliError, output, parseIdArg, parseMode, withContext, type CliContext } from '../context.ts';

function storeMaterial(ctx: CliContext, companyId: number, livemode: boolean, material: SigningMaterial) {
  return storeSigningMaterial(ctx.db, ctx.config.secretsKey, companyId, livemode, material);
}

/** Sandbox-ready demo data for a company created with --demo. */
export async function setUpDemoCompany(ctx: CliContext, companyId: number): Promise<void> {
  const company = (await getCompany(ctx.db, companyId))!;
  const cert = await createTestCertificate({
    idType: company.idType,
    idNumber: company.idNumber,
    name: company.legalName,
  });
  await storeMaterial(ctx, companyId, false, cert.material);
  await storeHaciendaCredentials(ctx.db, ctx.config.secretsKey, companyId, false, {
    username: `cpj-${company.idNumber}@stag.comprobanteselectronicos.go.cr`,
    password: randomBytes(18).toString('base64url'),
    verifiedAt: null,
  });
  const tenant = { companyId, livemode: false };
  await createService(ctx.db, tenant, {
    cabys: '8314100000200',
    description: 'Servicios de consultoría en tecnologías de la información',
    unit: 'Sp',
    taxCode: '01',
    ivaRateCode: '08',
    price: '25000.00',
  });
  await createService(ctx.db, tenant, {
    cabys: '4522003990000',
    description: 'Computadora portátil',
    unit: 'Unid',
    taxCode: '01',
    ivaRateCode: '08',
    price: '450000.00',
  });
}

export function registerCredentialCommands(company: Command): void {
  company
    .command('set-certificate')
    .description("Store the company's signing key from its .p12 (encrypted at rest)")
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--p12 <file>', 'the .p12 file (llave criptográfica)')
    .requiredOption('--pin <pin>', 'its PIN')
    .option('--mode <mode>', 'test or live', 'live')
    .option('--json', 'print JSON')
    .action(async (opts: { company: string; p12: string; pin: string; mode: string; json?: boolean }) => {
      const livemode = parseMode(opts.mode);
      const p12 = (() => {
        try {
          return readFileSync(opts.p12);
        } catch (err) {
          throw new CliError(`--p12: cannot read ${opts.p12}: ${(err as Error).message}`);
        }
      })();
      await withContext(async (ctx) => {
        const companyId = parseIdArg('company', opts.company, '--company');
        const c = await getCompany(ctx.db, companyId);
        if (!c) throw new CliError(`--company: no company ${opts.company}`);
        let material: SigningMaterial;
        try {
          material = openCompanyP12(p12, opts.pin, c).material;
        } catch (err) {
          if (err instanceof SigningKeyError) throw new CliError(`--p12: ${err.message}`);
          throw err;
        }
        const info = await storeMaterial(ctx, companyId, livemode, material);
        const out = {
          company: opts.company,
          livemode,
          subject: info.subject,
          not_after: info.notAfter.toISOString(),
        };
        output(
          opts.json,
          out,
          () =>
            `Stored the ${livemode ? 'live' : 'sandbox'} signing key (${info.subject}, valid until ${out.not_after})`,
        );
      });
    });

  company
    .command('set-hacienda-credentials')
    .description('Store the Hacienda API user (the password is encrypted at rest)')
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--username <user>', 'e.g. cpj-3-101-123456@prod.comprobanteselectronicos.go.cr')
    .requiredOption('--password <password>')
    .option('--mode <mode>', 'test or live', 'live')
    .option('--json', 'print JSON')
    .action(
      async (opts: { company: string; username: string; password: string; mode: string; json?: boolean }) => {
        const livemode = parseMode(opts.mode);
        await withContext(async (ctx) => {
          const companyId = parseIdArg('company', opts.company, '--company');
          if (!(await getCompany(ctx.db, companyId)))
            throw new CliError(`--company: no company ${opts.company}`);
          await storeHaciendaCredentials(ctx.db, ctx.config.secretsKey, companyId, livemode, {
            username: opts.username,
            password: opts.password,
            verifiedAt: null,
          });
          output(
            opts.json,
            { company: opts.company, livemode, username: opts.username },
            () => 'Stored the Hacienda credentials',
          );
        });
      },
    );
}
