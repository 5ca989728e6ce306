// A supplier's signed Factura Electrónica addressed to a company, for the received-documents
// tests: built by the project's own builder (hacienda/xml) with totals from domain/totals, signed
// by the real signer under the supplier's own sandbox certificate (or another's, to test refusals).
import { buildClave, buildConsecutivo } from '../../domain/clave.ts';
import { computeDocumentTotals } from '../../domain/totals.ts';
import { buildFacturaXml } from '../../hacienda/xml/factura.ts';
import type { DocumentLine, FacturaDocument } from '../../hacienda/xml/types.ts';
import { signerFor } from './hacienda-fixtures.ts';

export interface Party {
  idType: string;
  idNumber: string;
  name: string;
}

export const SUPPLIER: Party = { idType: '01', idNumber: '109870654', name: 'Proveedora Ejemplo Rojas' };

/** Two monitors at 100 000 + 13 % IVA and an exempt installation: TotalImpuesto 26 000, total 236 000. */
export const SUPPLIER_LINES: DocumentLine[] = [
  {
    cabys: '4523000000000',
    description: 'Monitor de 27 pulgadas',
    quantity: '2',
    unitPrice: '100000',
    unit: 'Unid',
    ivaRateCode: '08',
  },
  {
    cabys: '9311100000000',
    description: 'Instalación exenta',
    quantity: '1',
    unitPrice: '10000',
    unit: 'Sp',
    ivaRateCode: '10',
  },
];

export interface SupplierInvoice {
  clave: string;
  issuedAt: Date;
  xml: string;
}

/** The supplier's factura number `number` to `receptor`, signed by `signedBy` (the supplier by default). */
export async function supplierInvoice(
  number: number,
  receptor: Party,
  signedBy: Party = SUPPLIER,
): Promise<SupplierInvoice> {
  const issuedAt = new Date(Date.now() - 60_000);
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number });
  const clave = buildClave({
    date: issuedAt,
    emisorId: SUPPLIER.idNumber,
    consecutivo,
    situacion: '1',
    securityCode: String(40_000_000 + number),
  });
  const doc: FacturaDocument = {
    clave,
    consecutivo,
    issuedAt,
    proveedorSistemas: SUPPLIER.idNumber,
    activityCode: '523101',
    emisor: {
      name: SUPPLIER.name,
      idType: SUPPLIER.idType as '01',
      idNumber: SUPPLIER.idNumber,
      ubicacion: { provincia: '1', canton: '01', distrito: '02', otrasSenas: 'Calle 5, avenida 9' },
      emails: ['ventas@proveedora.example'],
    },
    receptor: { name: receptor.name, idType: receptor.idType as '02', idNumber: receptor.idNumber },
    condicionVenta: '02',
    plazoCredito: 30,
    mediosPago: [{ type: '04' }],
    lines: SUPPLIER_LINES,
    totals: computeDocumentTotals(SUPPLIER_LINES, { currency: 'CRC', exchangeRate: '1' }),
  };
  const xml = await (await signerFor(signedBy)).sign(buildFacturaXml(doc));
  return { clave, issuedAt, xml };
}
