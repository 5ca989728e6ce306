// `received sample`: prints a supplier's signed Factura Electrónica addressed to a company, for
// trying POST /api/v1/received_documents in the sandbox: a fixed sandbox supplier (cédula física
// 109870654) signs it with a certificate issued under the sandbox CA, the one the local simulator
// trusts. Nothing is recorded. Not for production: real suppliers send their own documents.
import type { Command } from 'commander';
import { getCompany } from '../../db/queries/companies.ts';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import type { IdentificationType } from '../../domain/codes.ts';
import { computeDocumentTotals } from '../../domain/totals.ts';
import { createSigner } from '../../hacienda/signer.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';
import { buildFacturaXml } from '../../hacienda/xml/factura.ts';
import type { DocumentLine } from '../../hacienda/xml/types.ts';
import { CliError, parseIdArg, withContext } from '../context.ts';

const SAMPLE_SUPPLIER = { idType: '01', idNumber: '109870654', name: 'Proveedora de Ejemplo Rojas' } as const;

const SAMPLE_LINES: DocumentLine[] = [
  {
    cabys: '4522003990000',
    description: 'Monitor de 27 pulgadas',
    quantity: '2',
    unitPrice: '100000',
    unit: 'Unid',
    ivaRateCode: '08',
  },
];

export function registerReceivedCommands(program: Command): void {
  const received = program.command('received').description('Documents received from suppliers');
  received
    .command('sample')
    .description("Print a sandbox supplier's signed factura addressed to a company (to try the API)")
    .requiredOption('--company <id>', 'the receptor company (cmp_… or its number)')
    .option('--number <n>', "the supplier's consecutive number", '1')
    .action(async (opts: { company: string; number: string }) => {
      const number = Number(opts.number);
      if (!Number.isSafeInteger(number) || number < 1) throw new CliError('--number: a positive integer');
      await withContext(async ({ db }) => {
        const company = await getCompany(db, parseIdArg('company', opts.company, '--company'));
        if (!company) throw new CliError(`--company: no company ${opts.company}`);
        const issuedAt = new Date();
        const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number });
        const clave = buildClave({
          date: issuedAt,
          emisorId: SAMPLE_SUPPLIER.idNumber,
          consecutivo,
          situacion: '1',
          securityCode: randomSecurityCode(),
        });
        const xml = buildFacturaXml({
          clave,
          consecutivo,
          issuedAt,
          proveedorSistemas: SAMPLE_SUPPLIER.idNumber,
          activityCode: '523101',
          emisor: {
            ...SAMPLE_SUPPLIER,
            ubicacion: { provincia: '1', canton: '01', distrito: '02', otrasSenas: 'Calle 5, avenida 9' },
            emails: ['ventas@proveedora.example'],
          },
          receptor: {
            name: company.legalName ?? company.name,
            idType: company.idType as IdentificationType,
            idNumber: company.idNumber,
          },
          condicionVenta: '01',
          mediosPago: [{ type: '04' }],
          lines: SAMPLE_LINES,
          totals: computeDocumentTotals(SAMPLE_LINES, { currency: 'CRC', exchangeRate: '1' }),
        });
        const cert = await createTestCertificate(SAMPLE_SUPPLIER);
        process.stdout.write(await (await createSigner(cert.material)).sign(xml));
      });
    });
}
