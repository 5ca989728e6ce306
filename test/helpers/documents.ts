// Document fixtures for the XML, schema and property tests: a complete, valid Factura Electrónica
// whose parts each test can replace.
import { buildClave, buildConsecutivo } from '../../domain/clave.ts';
import type { TipoComprobante } from '../../domain/codes.ts';
import { computeDocumentTotals, type TotalsOptions } from '../../domain/totals.ts';
import type {
  ComprobanteDocument,
  DocumentLine,
  Emisor,
  FacturaDocument,
  Receptor,
} from '../../hacienda/xml/types.ts';

export const TEST_EMISOR: Emisor = {
  name: 'Servicios Contables del Valle S.A.',
  idType: '02',
  idNumber: '3101123456',
  commercialName: 'Contables del Valle',
  ubicacion: {
    provincia: '1',
    canton: '01',
    distrito: '03',
    barrio: 'Barrio Amón',
    otrasSenas: '200 m norte del parque',
  },
  phone: { countryCode: '506', number: '22223333' },
  emails: ['facturas@delvalle.example'],
};

export const TEST_RECEPTOR: Receptor = {
  name: 'María Pérez Rodríguez',
  idType: '01',
  idNumber: '102340567',
  email: 'maria@example.com',
};

export const TEST_LINES: DocumentLine[] = [
  {
    cabys: '8314100000100',
    description: 'Asesoría contable mensual',
    quantity: '1',
    unitPrice: '150000',
    unit: 'Sp',
    ivaRateCode: '08',
  },
  {
    cabys: '3221000000000',
    description: 'Libros de actas',
    quantity: '2',
    unitPrice: '3500.50',
    unit: 'Unid',
    ivaRateCode: '08',
    discounts: [{ percent: '5', code: '07' }],
  },
];

export interface TestDocumentOptions {
  lines?: DocumentLine[];
  docType?: TipoComprobante;
  number?: number;
  issuedAt?: Date;
  emisor?: Emisor;
  totals?: Partial<TotalsOptions>;
}

/** A consistent document: clave and consecutivo agree with the emisor, totals with the lines. */
export function testDocument(options: TestDocumentOptions = {}): ComprobanteDocument {
  const lines = options.lines ?? TEST_LINES;
  const emisor = options.emisor ?? TEST_EMISOR;
  const docType = options.docType ?? '01';
  const issuedAt = options.issuedAt ?? new Date('2026-11-21T16:00:00Z');
  const consecutivo = buildConsecutivo({
    branch: '001',
    terminal: '00001',
    docType,
    number: options.number ?? 1,
  });
  const clave = buildClave({
    date: issuedAt,
    emisorId: emisor.idNumber,
    consecutivo,
    situacion: '1',
    securityCode: '20261121',
  });
  return {
    clave,
    consecutivo,
    issuedAt,
    proveedorSistemas: emisor.idNumber,
    activityCode: '692000',
    emisor,
    receptor: TEST_RECEPTOR,
    condicionVenta: '01',
    mediosPago: [{ type: '04' }],
    lines,
    totals: computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1', docType, ...options.totals }),
  };
}

export function testFactura(options: Omit<TestDocumentOptions, 'docType'> = {}): FacturaDocument {
  const doc = testDocument(options);
  return { ...doc, activityCode: doc.activityCode ?? '692000', receptor: doc.receptor ?? TEST_RECEPTOR };
}
