// The fixed document of the PDF tests and of the README's picture: a Factura Electrónica with
// accented text, a discount, an exonerated line, a reduced rate and a thousands-sized total.
import type { InvoicePdfInput } from '../../documents/invoice-pdf.ts';
import type { DocumentLine } from '../../hacienda/xml/types.ts';
import { TEST_EMISOR, testDocument } from './documents.ts';

export const PDF_LINES: DocumentLine[] = [
  {
    cabys: '8314100000100',
    description: 'Asesoría contable mensual (declaración de IVA y régimen de renta)',
    quantity: '1',
    unitPrice: '150000',
    unit: 'Sp',
    ivaRateCode: '08',
  },
  {
    cabys: '3221000000000',
    description: 'Libros de actas, tamaño oficio',
    quantity: '2',
    unitPrice: '3500.50',
    unit: 'Unid',
    ivaRateCode: '08',
    discounts: [{ percent: '5', code: '07' }],
  },
  {
    cabys: '8314100000100',
    description: 'Capacitación en facturación electrónica para la Asociación Cañera',
    quantity: '3',
    unitPrice: '25000',
    unit: 'Sp',
    ivaRateCode: '08',
    exoneration: {
      docType: '01',
      number: 'AL-00123-2026',
      institution: '01',
      issuedAt: new Date('2026-01-15T15:00:00Z'),
      rate: '13',
    },
  },
  {
    cabys: '2391102010200',
    description: 'Café de Tarrazú, 500 g',
    quantity: '1.5',
    unitPrice: '4200',
    unit: 'Kg',
    ivaRateCode: '02',
  },
];

export function pdfFixture(overrides: Partial<InvoicePdfInput> = {}): InvoicePdfInput {
  const document = testDocument({ lines: PDF_LINES, number: 1234, emisor: TEST_EMISOR });
  return {
    document: {
      ...document,
      receptor: {
        name: 'María José Núñez Araya',
        idType: '01',
        idNumber: '102340567',
        ubicacion: {
          provincia: '4',
          canton: '01',
          distrito: '01',
          otrasSenas: 'Frente a la Iglesia de San Rafael',
        },
        email: 'maria.nunez@example.com',
        phone: { countryCode: '506', number: '88887777' },
      },
      condicionVenta: '02',
      plazoCredito: 30,
    },
    docType: '01',
    livemode: true,
    status: 'aceptada',
    haciendaStatus: 'aceptado',
    ...overrides,
  };
}
