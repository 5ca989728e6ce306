// `service add|list`: the services catalogue from the command line.
import type { Command } from 'commander';
import { createService, listServices } from '../../db/queries/services.ts';
import { getCompany } from '../../db/queries/companies.ts';
import { serviceObject } from '../../api/presenters/services.ts';
import { IVA_RATE_CODES_FE, isUnidadMedida } from '../../domain/codes.ts';
import { validateServiceFields } from '../../domain/party-rules.ts';
import { CliError, output, parseIdArg, parseMode, withContext } from '../context.ts';

export function registerServiceCommands(program: Command): void {
  const service = program.command('service').description('Services catalogue');

  service
    .command('add')
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--cabys <code>', 'CABYS code, 13 digits')
    .requiredOption('--description <text>', '3 to 200 characters')
    .requiredOption('--unit <code>', 'UnidadMedida (Unid, Sp, Kg, …)')
    .requiredOption('--iva-rate-code <code>', 'CodigoTarifaIVA (01, 02, 03, 04, 08, 09, 10, 11)')
    .requiredOption('--price <amount>', 'default unit price')
    .option('--mode <mode>', 'test or live', 'test')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        company: string;
        cabys: string;
        description: string;
        unit: string;
        ivaRateCode: string;
        price: string;
        mode: string;
        json?: boolean;
      }) => {
        // The same rules as POST /api/v1/services (domain/party-rules.ts).
        const problems = validateServiceFields({ cabys: opts.cabys, description: opts.description });
        if (problems.length)
          throw new CliError(problems.map((p) => `--${p.path.slice(1)}: ${p.message}`).join('\n'));
        if (!(IVA_RATE_CODES_FE as readonly string[]).includes(opts.ivaRateCode)) {
          throw new CliError(`--iva-rate-code must be one of ${IVA_RATE_CODES_FE.join(', ')}`);
        }
        if (!isUnidadMedida(opts.unit))
          throw new CliError(`--unit: ${opts.unit} is not a v4.4 UnidadMedida code`);
        if (!/^\d{1,13}(\.\d{1,5})?$/.test(opts.price))
          throw new CliError('--price must be a decimal amount');
        await withContext(async ({ db }) => {
          const companyId = parseIdArg('company', opts.company, '--company');
          if (!(await getCompany(db, companyId))) throw new CliError(`--company: no company ${opts.company}`);
          const s = await createService(
            db,
            { companyId, livemode: parseMode(opts.mode) },
            {
              cabys: opts.cabys,
              description: opts.description.trim(),
              unit: opts.unit,
              taxCode: '01',
              ivaRateCode: opts.ivaRateCode,
              price: opts.price,
            },
          );
          const obj = serviceObject(s);
          output(opts.json, obj, () => `Created service ${obj.id}`);
        });
      },
    );

  service
    .command('list')
    .requiredOption('--company <id>', 'company id')
    .option('--mode <mode>', 'test or live', 'test')
    .option('--json', 'print JSON')
    .action(async (opts: { company: string; mode: string; json?: boolean }) => {
      await withContext(async ({ db }) => {
        const companyId = parseIdArg('company', opts.company, '--company');
        const { rows } = await listServices(
          db,
          { companyId, livemode: parseMode(opts.mode) },
          { limit: 100 },
        );
        const objs = rows.map(serviceObject);
        output(opts.json, objs, () =>
          objs.map((s) => `${s.id}  ${s.cabys}  ${s.unit}  ${s.price}  ${s.description}`).join('\n'),
        );
      });
    });
}
