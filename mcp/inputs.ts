// The inputs tools share, as zod shapes the SDK turns into JSON Schema and checks before a tool
// runs. They say what an assistant must know to call the service well; every rule beyond the
// shape (codes allowed per document type, totals, identifications) is the service's, answered as
// its problem+json.
import { z } from 'zod';

const amount = z.union([z.string(), z.number()]);

export const PAYMENT_METHODS = [
  'efectivo',
  'tarjeta',
  'cheque',
  'transferencia',
  'recaudado_terceros',
  'sinpe_movil',
  'plataforma_digital',
  'otros',
] as const;

export const invoiceId = z
  .string()
  .regex(/^inv_\d+$/, 'inv_…')
  .describe('Id del comprobante (inv_…) / The document id (inv_…)');

export const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(30)
  .optional()
  .describe(
    'Segundos a esperar la respuesta de Hacienda (0-30, por defecto 10) / Seconds to wait for Hacienda (0-30, default 10)',
  );

export const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Idempotency-Key: repetir la llamada con la misma llave no duplica el documento / repeating the call with the same key does not duplicate the document',
  );

const line = z
  .object({
    service_id: z.string().describe('Servicio del catálogo (srv_…) / Catalogue service (srv_…)'),
    qty: amount.describe('Cantidad (hasta 3 decimales) / Quantity (up to 3 decimals)'),
    unit_price: amount
      .optional()
      .describe('Precio unitario si no es el del servicio / Unit price if not the service’s'),
    description: z
      .string()
      .optional()
      .describe('Detalle si no es el del servicio / Detail if not the service’s'),
    discount: z
      .object({
        amount: z.string().optional(),
        percent: z.string().optional(),
        code: z.string().optional(),
        code_other: z.string().optional(),
        nature: z.string().optional(),
      })
      .optional()
      .describe('Descuento de la línea (monto o porcentaje) / The line’s discount (amount or percent)'),
  })
  .passthrough();

/** The body of a document issued through POST /api/v1/invoices (factura, tiquete, compra, exportación). */
export const documentBody = {
  document_type: z
    .enum(['01', '04', '08', '09'])
    .optional()
    .describe(
      '01 factura (por defecto), 04 tiquete, 08 factura de compra (con supplier), 09 exportación / 01 invoice (default), 04 ticket, 08 purchase invoice (with supplier), 09 export',
    ),
  client_id: z
    .string()
    .optional()
    .describe(
      'Receptor (cli_…); opcional en tiquete, ninguno en compra / Receptor (cli_…); optional on a ticket, none on a purchase',
    ),
  supplier: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Solo 08: el proveedor emisor (name, identification, …) / 08 only: the supplier (name, identification, …)',
    ),
  lines: z.array(line).min(1).max(1000).describe('Líneas / Lines'),
  condition: z
    .string()
    .optional()
    .describe(
      'Condición de venta: contado (por defecto), credito_30, … / Sale condition: contado (default), credito_30, …',
    ),
  currency: z.string().length(3).optional().describe('ISO 4217 (CRC por defecto / by default)'),
  exchange_rate: amount.optional().describe('Tipo de cambio a colones / Exchange rate to colones'),
  payment_method: z.enum(PAYMENT_METHODS).optional().describe('Medio de pago / Payment method'),
  payments: z
    .array(
      z.object({ method: z.enum(PAYMENT_METHODS), amount: amount.optional(), other: z.string().optional() }),
    )
    .max(4)
    .optional()
    .describe('Varios medios con sus montos / Several methods with their amounts'),
  other_charges: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe('Otros cargos / Other charges'),
  external_id: z.string().max(255).optional().describe('Su referencia, única / Your reference, unique'),
  replaces: invoiceId
    .optional()
    .describe('Documento rechazado que este reemplaza / Rejected document this replaces'),
  email_recipients: z.array(z.string().email()).max(10).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  idempotency_key: idempotencyKey,
};

export const noteBody = {
  invoice_id: invoiceId.describe(
    'Documento aceptado al que se refiere la nota / The accepted document the note references',
  ),
  reason: z.string().min(3).max(180).describe('Razón (3-180 caracteres) / Reason (3-180 characters)'),
  code: z
    .string()
    .regex(/^\d{2}$/)
    .optional()
    .describe('Código de referencia (nota 9) / Reference code (note 9)'),
  lines: z
    .array(
      z.object({
        line: z.number().int().min(1).describe('Número de línea del documento / The document’s line number'),
        qty: amount.optional().describe('Cantidad / Quantity'),
        amount: z.string().optional().describe('Monto neto antes de impuestos / Net amount before tax'),
      }),
    )
    .optional()
    .describe('Líneas afectadas; sin ellas, el documento entero / Lines affected; none: the whole document'),
  idempotency_key: idempotencyKey,
  wait_seconds: waitSeconds,
};
