// Invoice schemas. Creation accepts the reference's two request shapes in one schema (every
// field of both, unknown fields rejected); domain/invoice-request.ts then insists that the client
// and the lines use one shape, and takes the optional fields under either spelling.
import { Type } from 'typebox';
import {
  CODIGOS_DESCUENTO,
  INSTITUCIONES_EXONERACION,
  TIPOS_DOCUMENTO_EXONERACION,
  TIPOS_OTROS_CARGOS,
} from '../../domain/codes.ts';
import { PAYMENT_STATUSES } from '../../domain/balance.ts';
import { typesIssued, typesIssuedOnRequest } from '../../domain/document-types/index.ts';
import { PAYMENT_METHODS } from '../../domain/sale-terms.ts';
import { Decimal2, Limit, Timestamp, nameSchemas } from './common.ts';

const Qty = Type.Union([Type.Number(), Type.String()], {
  description: 'Quantity, > 0, up to 3 decimals (number or decimal string)',
  examples: [2],
});
const Price = Type.Union([Type.String(), Type.Number()], {
  description: 'Unit price (decimal string, up to 5 decimals); defaults to the service price',
  examples: ['1500.00'],
});

const Discount = Type.Object(
  {
    amount: Type.Optional(Type.String({ description: 'Discount amount for the line (MontoDescuento)' })),
    percent: Type.Optional(
      Type.String({
        description: 'Discount as a percentage of what earlier discounts leave of the line amount',
      }),
    ),
    code: Type.Optional(
      Type.String({
        enum: Object.keys(CODIGOS_DESCUENTO),
        default: '07',
        description:
          'CodigoDescuento: 04 volumen, 05 temporada, 06 promocional, 07 comercial, 08 frecuencia, ' +
          '09 sostenido, 99 otros (needs code_other). 01-03 (regalías, bonificaciones) are refused.',
      }),
    ),
    code_other: Type.Optional(
      Type.String({ minLength: 5, maxLength: 100, description: 'CodigoDescuentoOTRO, for code 99' }),
    ),
    codeOther: Type.Optional(
      Type.String({ minLength: 5, maxLength: 100, description: 'Same as code_other' }),
    ),
    nature: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 80,
        description: "NaturalezaDescuento; defaults to the code's name",
      }),
    ),
  },
  { additionalProperties: false, examples: [{ percent: '10', code: '04', nature: 'Descuento por volumen' }] },
);

const Exoneration = Type.Object(
  {
    doc_type: Type.Optional(
      Type.String({
        enum: Object.keys(TIPOS_DOCUMENTO_EXONERACION),
        description:
          'Required. TipoDocumentoEX1, e.g. 01 compras autorizadas DGT, 02 diplomáticos, 08 zona franca',
      }),
    ),
    doc_type_other: Type.Optional(
      Type.String({ minLength: 5, maxLength: 100, description: 'For doc_type 99' }),
    ),
    number: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 40,
        description: 'Required. NumeroDocumento of the exoneration',
      }),
    ),
    article: Type.Optional(Type.String({ pattern: '^\\d{1,6}$' })),
    inciso: Type.Optional(Type.String({ pattern: '^\\d{1,6}$' })),
    institution: Type.Optional(
      Type.String({
        enum: Object.keys(INSTITUCIONES_EXONERACION),
        description: 'Required. NombreInstitucion code, e.g. 01 Ministerio de Hacienda',
      }),
    ),
    institution_other: Type.Optional(
      Type.String({ minLength: 5, maxLength: 160, description: 'For institution 99' }),
    ),
    issued_at: Type.Optional(
      Type.String({
        description: 'Required. FechaEmisionEX: 2026-01-15 (Costa Rica midnight) or a date-time with offset',
      }),
    ),
    rate: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description:
          "Required. TarifaExonerada: percentage points of the line's IVA exonerated (≤ its rate, 2 decimals); " +
          'the line keeps the rest of the IVA',
      }),
    ),
  },
  {
    additionalProperties: true,
    description: 'The exoneration the client holds for this line (camelCase keys accepted too)',
    examples: [
      { doc_type: '03', number: 'AL-00012345-24', institution: '01', issued_at: '2026-01-15', rate: '13' },
    ],
  },
);

const Dec = (description: string) => Type.Union([Type.String(), Type.Number()], { description });

/** A tax beside the line's IVA; domain/other-taxes.ts says which fields each code needs. */
export const OtherTax = Type.Object(
  {
    code: Type.String({
      description:
        'Required. Impuesto Codigo: 02 selectivo de consumo and 12 cemento (rate), 03 combustibles and ' +
        '06 tabaco (unit_quantity, tax_per_unit), 04 bebidas alcohólicas (unit_quantity, alcohol_percent, ' +
        'tax_per_unit), 05 bebidas envasadas y jabones (unit_quantity, consumption_volume, tax_per_unit), ' +
        '99 otros (code_other and rate or amount)',
    }),
    code_other: Type.Optional(Type.String({ description: 'CodigoImpuestoOTRO (99), 5-100 characters' })),
    rate: Type.Optional(Dec('Tarifa in percent of the line subtotal (02, 12, 99), up to 2 decimals')),
    amount: Type.Optional(Dec('Monto stated (99 without a rate), up to 5 decimals')),
    unit_quantity: Type.Optional(
      Dec('CantidadUnidadMedida: litres (03), millilitres (04, 05) or units (06) per item sold'),
    ),
    alcohol_percent: Type.Optional(Dec('Porcentaje: alcohol by volume (04)')),
    consumption_volume: Type.Optional(
      Dec('VolumenUnidadConsumo (05): millilitres or grams of one unit of consumption'),
    ),
    tax_per_unit: Type.Optional(
      Dec(
        'ImpuestoUnidad: tax per litre (03), per millilitre of alcohol (04), per unit of consumption (05), per unit (06)',
      ),
    ),
  },
  {
    additionalProperties: true,
    description: 'A tax beside the IVA (camelCase keys accepted too); its Monto is computed',
    examples: [
      { code: '02', rate: '10' },
      { code: '04', unit_quantity: '350', alcohol_percent: '4.5', tax_per_unit: '4.15' },
      { code: '03', unit_quantity: '1', tax_per_unit: '280.25' },
      { code: '99', code_other: 'Impuesto municipal de patente', amount: '150' },
    ],
  },
);

const LineInput = Type.Object(
  {
    service_id: Type.Optional(Type.String({ description: 'Shape A: srv_… id' })),
    serviceId: Type.Optional(Type.String({ description: 'Shape B: service UUID' })),
    qty: Qty,
    unit_price: Type.Optional(Price),
    price: Type.Optional(Price),
    description: Type.Optional(Type.String({ minLength: 3, maxLength: 200 })),
    discount: Type.Optional(Discount),
    tariff_code: Type.Optional(
      Type.String({
        pattern: '^\\d{12}$',
        description: 'PartidaArancelaria (12 digits): lines of a factura de exportación (09) only',
      }),
    ),
    discounts: Type.Optional(
      Type.Array(Discount, {
        minItems: 1,
        maxItems: 5,
        description: 'Up to 5 discounts applied in order (instead of discount)',
      }),
    ),
    exoneration: Type.Optional(Exoneration),
    taxes: Type.Optional(
      Type.Array(OtherTax, {
        description: 'Taxes beside the IVA (Impuesto 02-06, 12, 99), written after it in the XML',
      }),
    ),
    tax_code: Type.Optional(
      Type.String({
        description:
          "The line's IVA: 01 (default, the service's), 07 IVA cálculo especial (taxable_base may be given), " +
          '08 IVA régimen de bienes usados (needs iva_factor)',
      }),
    ),
    iva_factor: Type.Optional(
      Dec('FactorCalculoIVA of IVA 08: IVA = taxable base × factor (up to 4 decimals)'),
    ),
    taxable_base: Type.Optional(
      Dec(
        'BaseImponible stated: IVA 07, or iva_collected_at_factory 01 (default: subtotal + taxes 02, 04, 05, 12)',
      ),
    ),
    iva_collected_at_factory: Type.Optional(
      Type.String({
        description:
          'IVACobradoFabrica: 01 IVA under the factory-level system, 02 exempt because the factory collected it ' +
          '(no IVA is written: the line needs another tax)',
      }),
    ),
    assumed_tax: Type.Optional(
      Dec(
        "ImpuestoAsumidoEmisorFabrica: tax the issuer assumes or the factory collected, at most the line's tax",
      ),
    ),
    iva_returned: Type.Optional(
      Type.Boolean({
        description:
          'A health service paid by card: its IVA is returned (TotalIVADevuelto); a tarjeta payment is required, and when other payments accompany it, every tarjeta payment states its amount (the IVA returned is card amount / venta neta × IVA of these lines)',
      }),
    ),
  },
  { additionalProperties: false },
);

const OtherCharge = Type.Object(
  {
    code: Type.Optional(
      Type.String({
        enum: Object.keys(TIPOS_OTROS_CARGOS),
        description:
          'Required. TipoDocumentoOC: 01 parafiscal, 02 Cruz Roja, 03 Bomberos, 04 cobro de un tercero (needs ' +
          'third_party), 05 exportación, 06 impuesto de servicio 10 %, 07 colegios, 08 depósitos, 09 multas, ' +
          '10 intereses moratorios, 99 otros (needs code_other)',
      }),
    ),
    code_other: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    detail: Type.Optional(
      Type.String({ minLength: 1, maxLength: 160, description: "Detalle; the code's name by default" }),
    ),
    percent: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description:
          'PorcentajeOC: the charge is this percentage of the net sale (after discounts, before taxes); ' +
          'code 06 defaults to 10',
      }),
    ),
    amount: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'MontoCargo' })),
    third_party: Type.Optional(
      Type.Object(
        {
          id_type: Type.Optional(
            Type.String({
              description:
                'Nota 4 type (01-06); required for a 10-digit number (jurídica 02 or NITE 04), ' +
                'otherwise read from the number as for a client',
            }),
          ),
          id_number: Type.Optional(Type.String({ description: 'Required: the cédula' })),
          name: Type.Optional(
            Type.String({ minLength: 5, maxLength: 100, description: 'Required: NombreTercero' }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  {
    additionalProperties: true,
    examples: [
      { code: '06' },
      {
        code: '04',
        amount: '2500',
        third_party: { id_type: '02', id_number: '3101123456', name: 'Parqueo Central SA' },
      },
    ],
  },
);

const Payment = Type.Object(
  {
    method: Type.String({ enum: Object.keys(PAYMENT_METHODS) }),
    amount: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description: 'TotalMedioPago; at most one payment leaves it out and takes the rest of the total',
      }),
    ),
    other: Type.Optional(Type.String({ minLength: 3, maxLength: 100, description: 'For method otros (99)' })),
  },
  { additionalProperties: false },
);

// The types POST /api/v1/invoices issues, as registered (domain/document-types/) when the schema is built.
const issuedTypes = typesIssuedOnRequest();
const IssuedDocumentType = Type.String({
  enum: issuedTypes.map((t) => t.code),
  description:
    'The comprobante issued: 01 factura electrónica (default), 04 tiquete electrónico (the receptor is ' +
    'optional; without one, a cash sale paid at issue), 08 factura electrónica de compra (shape A, with ' +
    '`supplier` as the emisor; no client), 09 factura electrónica de exportación (a foreign ' +
    'receptor: a client with identification_type 05 and a foreign_address; IVA at the 0% export rate). ' +
    'Each type has its own consecutivo series.',
});

const PaymentMethodName = Type.String({ enum: Object.keys(PAYMENT_METHODS) });
const PaymentMethodOther = Type.String({
  minLength: 3,
  maxLength: 100,
  description: 'MedioPagoOtros: required with payment method otros (99), refused with any other',
});

const SupplierInput = Type.Object(
  {
    name: Type.String({ minLength: 5, maxLength: 100, description: 'Emisor/Nombre' }),
    identification: Type.String({ maxLength: 40, description: 'The supplier identification number' }),
    identification_type: Type.Optional(
      Type.String({
        enum: ['01', '02', '03', '04', '05', '06'],
        description:
          'Nota 4; 05 Extranjero No Domiciliado and 06 No Contribuyente are for this emisor. Required for ' +
          'a 10-digit number (jurídica 02 or NITE 04) and for 05/06; otherwise read from the number ' +
          'as for a client',
      }),
    ),
    commercial_name: Type.Optional(Type.String({ minLength: 3, maxLength: 80 })),
    activity_code: Type.Optional(Type.String({ pattern: '^\\d{6}$', description: 'CodigoActividadEmisor' })),
    location: Type.Optional(
      Type.Object(
        {
          provincia: Type.String(),
          canton: Type.String(),
          distrito: Type.String(),
          barrio: Type.Optional(Type.String()),
          otras_senas: Type.String(),
        },
        {
          additionalProperties: false,
          description: 'Required for a supplier inscribed in Costa Rica (01-04)',
        },
      ),
    ),
    foreign_address: Type.Optional(
      Type.String({ minLength: 5, maxLength: 300, description: 'OtrasSenasExtranjero (05, 06)' }),
    ),
    phone: Type.Optional(Type.String({ pattern: '^\\d{8,20}$' })),
    phone_country: Type.Optional(Type.String({ pattern: '^\\d{1,3}$' })),
    email: Type.Optional(Type.String({ maxLength: 160 })),
    document: Type.Optional(
      Type.Object(
        {
          type: Type.Optional(
            Type.String({
              enum: ['14', '16', '99'],
              description:
                "TipoDocIR of the supplier's paper: 14 régimen especial, 16 proveedor no domiciliado " +
                '(default for 05), 99 otro (default otherwise)',
            }),
          ),
          number: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
          issue_date: Type.Optional(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'document_type 08 only: the supplier, emisor of the factura electrónica de compra',
  },
);

export const CreateInvoiceBody = Type.Object(
  {
    client_id: Type.Optional(
      Type.String({
        description: 'Shape A: cli_… id (the receptor; optional on a tiquete, 04; none on a compra, 08)',
      }),
    ),
    supplier: Type.Optional(SupplierInput),
    clientId: Type.Optional(Type.String({ description: 'Shape B: client UUID' })),
    document_type: Type.Optional(IssuedDocumentType),
    documentType: Type.Optional(
      Type.String({
        enum: issuedTypes.filter((t) => t.request?.form === 'invoice').map((t) => t.code),
        description: 'Same as document_type (give one)',
      }),
    ),
    lines: Type.Array(LineInput, { minItems: 1, maxItems: 1000 }),
    condition: Type.Optional(Type.String({ maxLength: 40, description: 'contado (default), credito_30, …' })),
    condition_other: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    credit_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 99999 })),
    creditDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 99999 })),
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217; defaults to the company currency (CRC)' }),
    ),
    exchange_rate: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description:
          'To colones, up to 5 decimals; 1 (or absent) for CRC; required for other currencies except USD, ' +
          "which without it takes the day's reference sell rate (exchange_rate_source: hacienda_bccr; 503 " +
          'exchange_rate_unavailable when none can be had) (either shape)',
      }),
    ),
    exchangeRate: Type.Optional(
      Type.Union([Type.String(), Type.Number()], { description: 'Same as exchange_rate (give one)' }),
    ),
    payments: Type.Optional(
      Type.Array(Payment, {
        minItems: 1,
        maxItems: 4,
        description:
          'Several payment methods with their amounts (MedioPago 1..4), instead of payment_method. ' +
          'The amounts add up to the total (or leave one out to take the rest)',
        examples: [[{ method: 'tarjeta', amount: '10000' }, { method: 'efectivo' }]],
      }),
    ),
    other_charges: Type.Optional(
      Type.Array(OtherCharge, { maxItems: 15, description: 'OtrosCargos, added to the total' }),
    ),
    otherCharges: Type.Optional(
      Type.Array(OtherCharge, { maxItems: 15, description: 'Same as other_charges' }),
    ),
    payment_method: Type.Optional(PaymentMethodName),
    paymentMethod: Type.Optional(PaymentMethodName),
    payment_method_other: Type.Optional(PaymentMethodOther),
    paymentMethodOther: Type.Optional(PaymentMethodOther),
    paid_at_issue: Type.Optional(
      Type.Boolean({
        description:
          'Cash sales (condition contado) are paid at issue: from the first answer the invoice is `paid` ' +
          "with balance_due 0.00, and one payment by the invoice's payment method is recorded when its " +
          'issue entry is booked (after Hacienda receives it). false leaves it unpaid, for the payments ' +
          'API. Only contado; default true for contado (either shape)',
      }),
    ),
    paidAtIssue: Type.Optional(Type.Boolean({ description: 'Same as paid_at_issue (give one)' })),
    branch: Type.Optional(
      Type.String({ pattern: '^\\d{3}$', description: 'Sucursal (3 digits); company default' }),
    ),
    terminal: Type.Optional(
      Type.String({ pattern: '^\\d{5}$', description: 'Terminal (5 digits); company default' }),
    ),
    external_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Unique per company and mode (either shape)',
      }),
    ),
    externalId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Same as external_id (give one)' }),
    ),
    send: Type.Optional(Type.Boolean({ description: 'false creates a draft (borrador); default true' })),
    replaces: Type.Optional(
      Type.String({
        pattern: '^inv_\\d{12}$',
        description:
          'A rejected document of this company, of the same document_type, that the new one replaces ' +
          '(once): InformacionReferencia Codigo 16 with TipoDocIR 10 (factura, tiquete) or 12 (export)',
      }),
    ),
    email_recipients: Type.Optional(
      Type.Array(Type.String({ format: 'email', maxLength: 160 }), {
        maxItems: 10,
        description: "Extra addresses the accepted document is emailed to, beside the client's",
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 20 }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        client_id: 'cli_000000000001',
        condition: 'credito_30',
        lines: [{ service_id: 'srv_000000000001', qty: 2, unit_price: '1500.00' }],
      },
      {
        clientId: '2f1c3b9e-8d0a-4c6e-9a51-0b8e5f7d2c11',
        currency: 'CRC',
        lines: [{ serviceId: '7a9d2e44-1c3b-4f0e-8b6a-5d2c9e1f3a70', qty: 1, price: '25000.00' }],
      },
      {
        document_type: '04',
        payment_method: 'tarjeta',
        lines: [{ service_id: 'srv_000000000001', qty: 1 }],
      },
      {
        document_type: '09',
        client_id: 'cli_000000000002',
        currency: 'USD',
        exchange_rate: '505.20',
        lines: [
          { service_id: 'srv_000000000003', qty: 100, unit_price: '12.50', tariff_code: '090111000000' },
        ],
      },
      {
        document_type: '08',
        supplier: {
          name: 'Cloud Tools LLC',
          identification: 'US4455667788',
          identification_type: '05',
          foreign_address: '500 Market St, San Francisco, CA, USA',
          email: 'billing@cloudtools.example',
        },
        currency: 'USD',
        exchange_rate: '505.25',
        lines: [{ service_id: 'srv_000000000001', qty: 1, unit_price: '49.00' }],
      },
      {
        client_id: 'cli_000000000001',
        lines: [
          {
            service_id: 'srv_000000000001',
            qty: 2,
            unit_price: '15000.00',
            discounts: [{ percent: '10', code: '04', nature: 'Descuento por volumen' }],
            exoneration: {
              doc_type: '03',
              number: 'AL-00012345-24',
              institution: '01',
              issued_at: '2026-01-15',
              rate: '13',
            },
          },
        ],
        other_charges: [{ code: '06' }],
        payments: [{ method: 'tarjeta', amount: '20000' }, { method: 'efectivo' }],
      },
      {
        client_id: 'cli_000000000001',
        lines: [
          {
            service_id: 'srv_000000000004',
            qty: 24,
            unit_price: '900',
            taxes: [
              { code: '02', rate: '10' },
              { code: '04', unit_quantity: '350', alcohol_percent: '4.5', tax_per_unit: '4.15' },
            ],
          },
          {
            service_id: 'srv_000000000005',
            qty: 1,
            unit_price: '5000000',
            tax_code: '08',
            iva_factor: '0.035',
          },
        ],
      },
    ],
  },
);

const TaxLine = Type.Object({
  code: Type.String({
    description: 'Impuesto Codigo: 01/07/08 the IVA, 02-06, 12, 99 the other taxes',
    examples: ['01'],
  }),
  iva_rate_code: Type.Union([Type.String(), Type.Null()]),
  rate: Type.Union([Type.String(), Type.Null()], {
    description:
      'Tarifa in percent with two decimals, the same in lines[].taxes and tax_breakdown; null for a specific tax (03-06) or a stated amount',
    examples: ['13.00'],
  }),
  code_other: Type.Optional(Type.String({ description: 'CodigoImpuestoOTRO (code 99)' })),
  factor: Type.Optional(Type.String({ description: 'FactorCalculoIVA (IVA 08, bienes usados)' })),
  specific: Type.Optional(
    Type.Object(
      {
        unit_quantity: Type.String({ description: 'CantidadUnidadMedida' }),
        alcohol_percent: Type.Union([Type.String(), Type.Null()], { description: 'Porcentaje (04)' }),
        proportion: Type.Union([Type.String(), Type.Null()], { description: 'Proporcion (04)' }),
        consumption_volume: Type.Union([Type.String(), Type.Null()], {
          description: 'VolumenUnidadConsumo (05)',
        }),
        tax_per_unit: Type.String({ description: 'ImpuestoUnidad' }),
      },
      { description: 'DatosImpuestoEspecifico of a specific tax (03-06)' },
    ),
  ),
  amount: Type.String({ description: 'Monto' }),
  exoneration: Type.Optional(
    Type.Object(
      {
        doc_type: Type.String(),
        number: Type.String(),
        institution: Type.String(),
        issued_at: Timestamp,
        rate: Type.String({ description: 'TarifaExonerada' }),
        amount: Type.String({ description: 'MontoExoneracion: the IVA the exoneration removes' }),
      },
      { description: 'Lines of an exonerated client: Monto is the IVA before the exoneration' },
    ),
  ),
});

export const InvoiceLineObject = Type.Object({
  line_number: Type.Integer(),
  service_id: Type.Union([Type.String(), Type.Null()]),
  cabys: Type.String(),
  description: Type.String(),
  unit: Type.String(),
  kind: Type.String({ enum: ['goods', 'services'] }),
  qty: Type.String(),
  unit_price: Type.String(),
  amount: Type.String({ description: 'MontoTotal = qty × unit_price' }),
  discount: Type.String(),
  discounts: Type.Array(
    Type.Object({
      amount: Type.String(),
      code: Type.String(),
      code_other: Type.Union([Type.String(), Type.Null()]),
      nature: Type.String(),
    }),
  ),
  subtotal: Type.String(),
  iva_collected_at_factory: Type.Optional(Type.String({ description: 'IVACobradoFabrica (01, 02)' })),
  taxable_base: Type.String({ description: 'BaseImponible: subtotal + taxes 02, 04, 05, 12, or as stated' }),
  taxes: Type.Array(TaxLine),
  assumed_tax: Type.String({ description: 'ImpuestoAsumidoEmisorFabrica' }),
  iva_returned: Type.Optional(
    Type.String({
      description:
        "The IVA this line returns, its part of TotalIVADevuelto: all of its IVA when the sale is paid by card alone, else in proportion to its IVA (the parts add up to the document's total)",
    }),
  ),
  total: Type.String({ description: 'MontoTotalLinea' }),
});

const Figure = Type.Union([Type.String(), Type.Null()], { description: '5 decimals; null when none' });

/**
 * ResumenFactura as Hacienda receives it, under snake_case names (TotalServGravados →
 * total_serv_gravados, TotalIVADevuelto → total_iva_devuelto), amounts with 5 decimals.
 */
export const DocumentSummary = Type.Object(
  {
    currency: Type.String({ examples: ['CRC'] }),
    exchange_rate: Type.String({ description: 'TipoCambio', examples: ['1.00000'] }),
    total_serv_gravados: Figure,
    total_serv_exentos: Figure,
    total_serv_exonerado: Figure,
    total_serv_no_sujeto: Figure,
    total_mercancias_gravadas: Figure,
    total_mercancias_exentas: Figure,
    total_merc_exonerada: Figure,
    total_merc_no_sujeta: Figure,
    total_gravado: Figure,
    total_exento: Figure,
    total_exonerado: Figure,
    total_no_sujeto: Figure,
    total_venta: Type.String(),
    total_descuentos: Figure,
    total_venta_neta: Type.String(),
    total_desglose_impuesto: Type.Array(
      Type.Object({
        code: Type.String(),
        iva_rate_code: Type.Union([Type.String(), Type.Null()]),
        amount: Type.String(),
      }),
      { description: 'TotalDesgloseImpuesto: one row per tax code and IVA rate code' },
    ),
    total_impuesto: Type.String(),
    total_imp_asum_emisor_fabrica: Figure,
    total_iva_devuelto: Figure,
    total_otros_cargos: Figure,
    total_comprobante: Type.String({ examples: ['113.00000'] }),
  },
  {
    additionalProperties: false,
    description: 'ResumenFactura figures with 5 decimals, under snake_case names',
  },
);

const Bilingual = Type.Object({ es: Type.String(), en: Type.String() });

/** One error Hacienda reported, explained. */
export const RejectionItem = Type.Object(
  {
    code: Type.Union([Type.Integer(), Type.Null()]),
    message: Type.String({ description: "Hacienda's own text" }),
    line: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    column: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    kind: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'The catalogue entry that explained it' }),
    ),
    field: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'The XML element (or request field) to fix' }),
    ),
    readable: Type.Optional(Bilingual),
    fix: Type.Optional(Bilingual),
  },
  { additionalProperties: true },
);

/** Why an invoice's flow stopped (null while it runs or after it ends well). */
export const ProcessingError = Type.Object(
  {
    step: Type.String({ examples: ['sign'] }),
    code: Type.Optional(Type.String()),
    message: Type.String(),
    permanent: Type.Optional(
      Type.Boolean({ description: 'true: it waits for a person; false: it is being retried' }),
    ),
    at: Type.Optional(Timestamp),
  },
  { additionalProperties: true },
);

/** One of Hacienda's observations on a document it accepted. */
export const HaciendaWarning = Type.Object(
  {
    code: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "Hacienda's code, e.g. -16 (sent late) or -37 (the emisor's location is not the registered one)",
    }),
    message: Type.String({ description: "Hacienda's own text (Spanish)" }),
    readable: Type.Object(
      { es: Type.String(), en: Type.String() },
      { description: 'What it means, in Spanish and English' },
    ),
    fix: Type.Object(
      { es: Type.String(), en: Type.String() },
      { description: 'What to do about it for the next documents (this one stands)' },
    ),
  },
  {
    examples: [
      {
        code: -16,
        message:
          'El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; con base en lo estipulado en el artículo 9 y 15 ambos de la resolución 48-2016',
        readable: {
          es: 'El comprobante se envió fuera del plazo permitido después de su emisión.',
          en: 'The document was sent after the allowed period following its issue date.',
        },
        fix: {
          es: 'Envíe los comprobantes en cuanto se emiten; si hubo contingencia, siga el procedimiento de contingencia.',
          en: 'Send documents as soon as they are issued; after an outage follow the contingency procedure.',
        },
      },
    ],
  },
);

export const RejectionReason = Type.Object({
  message: Type.String({ description: 'Readable text in the requested language' }),
  summary: Type.Object({ es: Type.String(), en: Type.String() }),
  items: Type.Array(RejectionItem),
  raw: Type.Union([Type.String(), Type.Null()]),
});

function SupplierObject() {
  return Type.Object({
    name: Type.String(),
    identification: Type.String(),
    identification_type: Type.String(),
    commercial_name: Type.Union([Type.String(), Type.Null()]),
    activity_code: Type.Union([Type.String(), Type.Null()]),
    location: Type.Union([
      Type.Object({
        provincia: Type.String(),
        canton: Type.String(),
        distrito: Type.String(),
        barrio: Type.Union([Type.String(), Type.Null()]),
        otras_senas: Type.String(),
      }),
      Type.Null(),
    ]),
    foreign_address: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    document: Type.Object({
      type: Type.String(),
      number: Type.Union([Type.String(), Type.Null()]),
      issue_date: Type.Union([Timestamp, Type.Null()]),
    }),
  });
}

export const DocumentReferenceObject = Type.Object({
  document_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The referenced document (inv_… id), null for a document issued elsewhere',
  }),
  document_type: Type.String({ description: 'TipoDocIR (nota 10), e.g. 01 factura, 10 rechazado' }),
  clave: Type.String(),
  issue_date: Timestamp,
  code: Type.String({ description: 'Codigo (nota 9), e.g. 01 anula, 02 corrige, 16 sustituye rechazado' }),
  reason: Type.String(),
});

export const InvoiceObject = Type.Object({
  id: Type.String({ examples: ['inv_000000000042'] }),
  object: Type.Literal('invoice'),
  livemode: Type.Boolean(),
  status: Type.String({ enum: ['borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada'] }),
  document_type: Type.String({
    enum: typesIssued().map((t) => t.code),
    description:
      '01 factura electrónica, 02 nota de débito, 03 nota de crédito, 04 tiquete electrónico, ' +
      '08 factura electrónica de compra, 09 factura electrónica de exportación, 10 recibo electrónico de pago',
  }),
  consecutivo: Type.Union([Type.String(), Type.Null()]),
  clave: Type.Union([Type.String(), Type.Null()]),
  client_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'The receptor; null on a tiquete sold to no one in particular and on a factura electrónica de compra (whose emisor is `supplier`)',
  }),
  supplier: Type.Optional(
    Type.Union([SupplierObject(), Type.Null()], {
      description: 'document_type 08: the supplier, emisor of the factura electrónica de compra',
    }),
  ),
  currency: Type.String(),
  exchange_rate: Type.String(),
  exchange_rate_source: Type.Union([Type.String(), Type.Null()], {
    description:
      'Where exchange_rate came from: request (given), hacienda_bccr (a dollar invoice without one took ' +
      "the BCCR's reference sell rate of its Costa Rica issue day, as Hacienda publishes it); null for CRC",
  }),
  condition: Type.String(),
  credit_days: Type.Union([Type.Integer(), Type.Null()]),
  payment_methods: Type.Array(Type.String()),
  payment_method_other: Type.Union([Type.String(), Type.Null()]),
  payments: Type.Array(
    Type.Object({
      method: Type.String(),
      amount: Type.Union([Type.String(), Type.Null()], {
        description: 'TotalMedioPago (2 decimals); null for a single payment stated without amount',
      }),
      other: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'MedioPago: the payment methods and their amounts' },
  ),
  other_charges: Type.Array(
    Type.Object({
      code: Type.String(),
      code_other: Type.Union([Type.String(), Type.Null()]),
      detail: Type.String(),
      percent: Type.Union([Type.String(), Type.Null()]),
      amount: Type.String(),
      third_party: Type.Union([
        Type.Object({
          id_type: Type.String(),
          id_number: Type.String(),
          name: Type.Union([Type.String(), Type.Null()]),
        }),
        Type.Null(),
      ]),
    }),
    { description: 'OtrosCargos with their amounts (5 decimals)' },
  ),
  issue_date: Type.Union([Timestamp, Type.Null()]),
  lines: Type.Array(InvoiceLineObject),
  tax_breakdown: Type.Array(TaxLine),
  subtotal: Decimal2,
  total_discount: Decimal2,
  total_tax: Decimal2,
  total: Decimal2,
  totals: DocumentSummary,
  paid_at_issue: Type.Boolean({
    description:
      'A cash sale paid at issue: `paid` with nothing due from the first answer, its payment recorded ' +
      'when its issue entry is booked (see paid_at_issue above)',
  }),
  payment_status: Type.String({
    enum: [...PAYMENT_STATUSES],
    description:
      'From balance_due and the payments applied: `unpaid` (something due, nothing paid), `partial`, ' +
      '`paid` (nothing due, something paid), `not_applicable` (owed by nobody: a credit note, or a ' +
      'document credited whole before any payment)',
  }),
  balance_due: Type.String({
    pattern: '^-?\\d+\\.\\d{2}$',
    examples: ['1130.00'],
    description:
      'What is still owed: the total less what credit notes took off (credited_total) and what payments ' +
      'applied, never below zero; 0.00 on a credit note (what it credits comes off the document it ' +
      'references). A debit note is owed as a document of its own, with its own balance_due.',
  }),
  rejection_reason: Type.Union([RejectionReason, Type.Null()]),
  warnings: Type.Array(HaciendaWarning, {
    description:
      'Observations Hacienda made on the document while accepting it (its answer still says aceptado): ' +
      'e.g. -16 sent late, -37 the emisor’s location not the registered one. [] when there are none or ' +
      'the document is not accepted yet. They ask for no action on this document; fix the cause for the next ones.',
  }),
  processing_error: Type.Union([ProcessingError, Type.Null()]),
  external_id: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.String()),
  email_recipients: Type.Array(Type.String()),
  email: Type.Object(
    {
      status: Type.Union([Type.String({ enum: ['pending', 'sent', 'failed', 'bounced'] }), Type.Null()]),
      sent_at: Type.Union([Timestamp, Type.Null()]),
      bounces: Type.Array(
        Type.Object({
          address: Type.String(),
          code: Type.Union([Type.Integer(), Type.Null()]),
          response: Type.String(),
        }),
      ),
    },
    { description: 'The last email of the document to its receptor (null status: none yet)' },
  ),
  reference: Type.Union([DocumentReferenceObject, Type.Null()], {
    description: 'What a note or a replacement references (its InformacionReferencia)',
  }),
  credited_total: Decimal2,
  annulled: Type.Boolean({ description: 'true once credit notes credit the whole total' }),
  replaces: Type.Union([Type.String(), Type.Null()], {
    description: 'The rejected invoice this one replaces (inv_… id)',
  }),
  replaced_by: Type.Union([Type.String(), Type.Null()], {
    description: 'The invoice that replaced this rejected one (inv_… id)',
  }),
  hacienda: Type.Object({
    status: Type.Union([Type.String(), Type.Null()]),
    signed_at: Type.Union([Timestamp, Type.Null()]),
    submitted_at: Type.Union([Timestamp, Type.Null()]),
    accepted_at: Type.Union([Timestamp, Type.Null()]),
    rejected_at: Type.Union([Timestamp, Type.Null()]),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const P = InvoiceObject.properties;

/** Something the preview noticed that does not stop the document (the create would still record it). */
export const PreviewWarning = Type.Object({
  code: Type.String({ examples: ['company_incomplete'] }),
  message: Bilingual,
});

/**
 * The answer of POST /api/v1/invoices/preview: the lines and totals the create would record, in the
 * invoice object's own shapes, without a number, a clave or anything stored.
 */
export const InvoicePreviewObject = Type.Object({
  object: Type.Literal('invoice_preview'),
  livemode: P.livemode,
  document_type: P.document_type,
  client_id: P.client_id,
  currency: P.currency,
  exchange_rate: P.exchange_rate,
  exchange_rate_source: P.exchange_rate_source,
  condition: P.condition,
  credit_days: P.credit_days,
  payment_methods: P.payment_methods,
  payments: P.payments,
  other_charges: P.other_charges,
  lines: P.lines,
  tax_breakdown: P.tax_breakdown,
  subtotal: P.subtotal,
  total_discount: P.total_discount,
  total_tax: P.total_tax,
  total: P.total,
  totals: P.totals,
  warnings: Type.Array(PreviewWarning, {
    description:
      'What would not stop this preview but would stop or change the create: `company_incomplete` ' +
      '(the company cannot issue yet in this mode; a draft, send: false, can still be recorded). ' +
      '[] when there is nothing to say.',
  }),
});

export const ListInvoicesQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({ enum: ['borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada'] }),
    ),
    document_type: Type.Optional(
      Type.String({
        enum: typesIssued().map((t) => t.code),
        description:
          'Hacienda document type: 01 factura, 02 nota de débito, 03 nota de crédito, 04 tiquete, …',
      }),
    ),
    client: Type.Optional(Type.String({ description: 'cli_… id or UUID' })),
    external_id: Type.Optional(Type.String({ maxLength: 255 })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          "One of the invoice's identifiers, matched exactly: its id (inv_…), clave (50 digits), " +
          'consecutivo (20 digits) or external id. For a client by name, look the client up with ' +
          'GET /api/v1/clients and filter with `client`.',
        examples: ['00100001010000000042'],
      }),
    ),
    created_gte: Type.Optional(Timestamp),
    created_lt: Type.Optional(Timestamp),
    updated_gte: Type.Optional(Timestamp),
    updated_lt: Type.Optional(Timestamp),
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(Type.String({ pattern: '^inv_\\d{12}$' })),
  },
  { additionalProperties: false },
);

export const TimelineEntryObject = Type.Object(
  {
    object: Type.Literal('timeline_entry'),
    type: Type.String({
      enum: ['recorded', 'signed', 'submitted', 'answered', 'emailed', 'paid', 'credited'],
      description:
        'recorded: the invoice was accepted by the API; signed: its XML was signed; submitted: sent to ' +
        "Hacienda; answered: Hacienda's verdict (detail.status aceptada or rechazada; an accepted one " +
        "carries Hacienda's observations in detail.warnings, [] when none); emailed: one email " +
        'to the receptor (detail.status pending, sent, failed or bounced; round 0 at acceptance, then ' +
        'resends); paid: a payment; credited: a credit note referencing it, or its annulment',
    }),
    at: Timestamp,
    detail: Type.Record(Type.String(), Type.Any(), {
      description: 'What the step says: ids (email_id, payment_id, event_id), status, amount …',
    }),
  },
  {
    examples: [
      {
        object: 'timeline_entry',
        type: 'emailed',
        at: '2026-11-24T15:04:05.000Z',
        detail: { email_id: 'eml_000000000007', round: 0, status: 'sent', recipients: ['juana@example.com'] },
      },
    ],
  },
);

export const TimelineList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(TimelineEntryObject),
  has_more: Type.Boolean(),
});

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  LineDiscountInput: Discount,
  InvoiceLineInput: LineInput,
  CreateInvoiceRequest: CreateInvoiceBody,
  TaxLine,
  InvoiceLine: InvoiceLineObject,
  RejectionReason,
  RejectionItem,
  HaciendaWarning,
  ProcessingError,
  DocumentSummary,
  Invoice: InvoiceObject,
  InvoicePreview: InvoicePreviewObject,
  InvoicePreviewWarning: PreviewWarning,
  TimelineEntry: TimelineEntryObject,
  TimelineList,
});
