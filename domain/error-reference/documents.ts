// The reference of the codes about documents: invoices and their notes, retries and replacements,
// payments and receipts, and the suppliers' documents received.
import { say, type ReferencePart } from './entry.ts';

type DocumentCode =
  | 'duplicate_external_id'
  | 'invalid_state'
  | 'invoice_not_retryable'
  | 'retry_cause_persists'
  | 'reference_not_accepted'
  | 'invoice_not_replaceable'
  | 'invoice_not_payable'
  | 'invoice_already_paid'
  | 'payment_exceeds_balance'
  | 'credit_exceeds_total'
  | 'document_not_creditable'
  | 'receipt_not_applicable'
  | 'received_document_exists'
  | 'already_answered'
  | 'invalid_xml'
  | 'signature_invalid'
  | 'signature_policy_invalid'
  | 'receptor_mismatch';

const RECEIVED_FIX = say(
  'Envíe en xml_base64 el XML firmado tal como lo recibió del proveedor, sin modificarlo ni volver a guardarlo.',
  'Send in xml_base64 the signed XML exactly as the supplier sent it, without changing or re-saving it.',
);

export const DOCUMENT_ERRORS: ReferencePart<DocumentCode> = {
  duplicate_external_id: {
    titleEs: 'external_id duplicado',
    means: say(
      'Otro documento de la empresa en este modo ya usa ese external_id; existing_invoice_id lo nombra.',
      'Another document of the company in this mode already uses that external_id; existing_invoice_id names it.',
    ),
    fields: ['existing_invoice_id'],
    fix: say(
      'Si es el mismo pedido, use el documento existente; si no, dé otro external_id. Para reintentos seguros ' +
        'use Idempotency-Key.',
      'If it is the same order, use the existing document; otherwise give another external_id. For safe ' +
        'retries use Idempotency-Key.',
    ),
    detail: 'external_id is already used by another document',
    extra: { existing_invoice_id: 'inv_000000000042' },
  },
  invalid_state: {
    titleEs: 'Estado inválido para esta operación',
    means: say(
      'El recurso no está en un estado que permita la operación: enviar un documento que ya no es borrador, el ' +
        'PDF o el XML de un borrador, el correo de uno que no está aceptado, la respuesta de Hacienda antes de ' +
        'que llegue, o rotar una llave revocada.',
      'The resource is not in a state that allows the operation: sending a document that is no longer a draft, ' +
        'the PDF or XML of a draft, emailing one not accepted, Hacienda’s answer before it arrives, or rolling ' +
        'a revoked key.',
    ),
    fields: ['invoice_status'],
    fix: say(
      'Consulte el estado (GET /api/v1/invoices/{id}) y espere o haga el paso que falta.',
      'Read the state (GET /api/v1/invoices/{id}) and wait for, or take, the missing step.',
    ),
    detail: 'Invoice inv_000000000042 is already issued (status aceptada)',
    extra: { invoice_status: 'aceptada' },
  },
  invoice_not_retryable: {
    titleEs: 'La factura no se puede reintentar en su estado',
    means: say(
      'Solo se reintenta un documento cuyo proceso falló de forma permanente; no un borrador, uno que Hacienda ' +
        'recibió (enviada, aceptada), uno rechazado ni uno aún en proceso.',
      'Only a document whose processing failed for good is retried; not a draft, one Hacienda received ' +
        '(enviada, aceptada), a rejected one, nor one still in flight.',
    ),
    fields: ['invoice_status', 'processing_error'],
    fix: say(
      'Un borrador se envía (POST …/send); uno rechazado se reemplaza (replaces en POST /api/v1/invoices); los ' +
        'demás se esperan.',
      'A draft is sent (POST …/send); a rejected one is replaced (replaces in POST /api/v1/invoices); the ' +
        'others are waited for.',
    ),
    detail: 'Invoice inv_000000000042: Hacienda accepted the invoice',
    extra: { invoice_status: 'aceptada', processing_error: null },
  },
  retry_cause_persists: {
    titleEs: 'La causa de la falla sigue presente',
    means: say(
      'El reintento fallaría igual: falta el certificado de firma del modo o venció, o falta el usuario de la ' +
        'API de Hacienda en producción.',
      'The retry would fail the same way: the signing certificate of the mode is missing or expired, or the ' +
        'Hacienda API user is missing in live mode.',
    ),
    fields: ['invoice_status', 'processing_error'],
    fix: say(
      'Corrija la causa (PUT /api/v1/company/certificate o /hacienda_credentials) y reintente.',
      'Fix the cause (PUT /api/v1/company/certificate or /hacienda_credentials) and retry.',
    ),
    detail: 'Invoice inv_000000000042: The company has no signing certificate in this mode: upload one first',
    extra: {
      invoice_status: 'pendiente',
      processing_error: { step: 'sign', code: 'no_certificate', permanent: true },
    },
  },
  reference_not_accepted: {
    titleEs: 'Documento de referencia no aceptado por Hacienda',
    means: say(
      'Una nota de crédito o débito, o un recibo de pago, solo puede referirse a un documento que Hacienda aceptó.',
      'A credit or debit note, or a payment receipt, can only refer to a document Hacienda accepted.',
    ),
    fields: ['status', '/issue_receipt'],
    fix: say(
      'Espere a que el documento quede aceptada (GET /api/v1/invoices/{id}) y repita.',
      'Wait until the document is aceptada (GET /api/v1/invoices/{id}) and repeat.',
    ),
    detail: 'Only a document Hacienda accepted can be referenced; this one is enviada',
    extra: { status: 'enviada' },
  },
  invoice_not_replaceable: {
    titleEs: 'Solo una factura rechazada y no reemplazada se puede reemplazar',
    means: say(
      'replaces nombra un documento que no está rechazado, o que ya fue reemplazado.',
      'replaces names a document that is not rejected, or that was already replaced.',
    ),
    fields: ['/replaces'],
    fix: say(
      'Use replaces solo con el id de un documento rechazada sin reemplazo; para corregir uno aceptado emita ' +
        'una nota de crédito.',
      'Use replaces only with the id of a rechazada document not yet replaced; to correct an accepted one ' +
        'issue a credit note.',
    ),
    detail: 'inv_000000000042 is aceptada: only a rejected invoice can be replaced',
    errors: [
      {
        path: '/replaces',
        code: 'invoice_not_replaceable',
        message: 'inv_000000000042 is aceptada: only a rejected invoice can be replaced',
      },
    ],
  },
  invoice_not_payable: {
    titleEs: 'La factura no se puede pagar en su estado',
    means: say(
      'Un borrador o un documento rechazado no se pagan; tampoco una compra (08), un recibo (10) ni una nota ' +
        'de crédito (03) por esta API.',
      'A draft or a rejected document is not paid; nor is a purchase (08), a receipt (10) or a credit note (03) ' +
        'through this API.',
    ),
    fields: [],
    fix: say(
      'Emita el borrador primero; registre pagos solo de documentos emitidos a sus clientes.',
      'Issue the draft first; record payments only of documents issued to your clients.',
    ),
    detail: 'An invoice in status borrador cannot be paid: a draft must be issued first',
  },
  invoice_already_paid: {
    titleEs: 'Factura ya pagada',
    means: say('El saldo de la factura ya es cero.', "The invoice's balance is already zero."),
    fields: [],
    fix: say(
      'Revise los pagos registrados (GET /api/v1/invoices/{id}/payments).',
      'Review the payments recorded (GET /api/v1/invoices/{id}/payments).',
    ),
    detail: 'The invoice is already paid in full',
  },
  payment_exceeds_balance: {
    titleEs: 'El pago supera el saldo pendiente',
    means: say(
      'El monto es mayor que lo que se debe; balance_due dice el saldo.',
      'The amount is larger than what is owed; balance_due gives the balance.',
    ),
    fields: ['/amount', 'balance_due'],
    fix: say('Registre un monto de a lo sumo balance_due.', 'Record an amount of at most balance_due.'),
    detail: 'The amount 60000.00 exceeds the balance due 50000.00',
    errors: [
      {
        path: '/amount',
        code: 'payment_exceeds_balance',
        message: 'The amount 60000.00 exceeds the balance due 50000.00',
      },
    ],
    extra: { balance_due: '50000.00' },
  },
  credit_exceeds_total: {
    titleEs: 'Los créditos superarían el total del documento',
    means: say(
      'Con esta nota de crédito, lo acreditado superaría el total del documento, o una línea quedaría con más ' +
        'unidades acreditadas de las vendidas.',
      "With this credit note, the credits would exceed the document's total, or a line would be credited more " +
        'units than were sold.',
    ),
    fields: ['line', 'units_left', 'creditable'],
    fix: say(
      'Acredite como máximo lo que queda (units_left o creditable de la línea indicada).',
      'Credit at most what is left (units_left or creditable of the line named).',
    ),
    detail: 'Line 1 has 2 units left to credit',
    extra: { line: 1, units_left: '2' },
  },
  document_not_creditable: {
    titleEs: 'Este tipo de documento no puede referirse con una nota',
    means: say(
      'Solo facturas, notas de débito, tiquetes y facturas de exportación se refieren con una nota; ' +
        'document_type dice el tipo dado.',
      'Only facturas, debit notes, tiquetes and facturas de exportación are referred to by a note; ' +
        'document_type gives the type given.',
    ),
    fields: ['document_type'],
    fix: say('Dirija la nota a un documento de esos tipos.', 'Aim the note at a document of those types.'),
    detail: 'Only facturas, debit notes, tiquetes and facturas de exportación can be referenced by a note',
    extra: { document_type: '03' },
  },
  receipt_not_applicable: {
    titleEs: 'Un recibo de pago aplica solo a una venta a crédito',
    means: say(
      'issue_receipt pide un recibo electrónico de pago, que solo liquida una factura electrónica (01) de venta ' +
        'a crédito.',
      'issue_receipt asks for a recibo electrónico de pago, which only settles a factura electrónica (01) ' +
        'sold on credit.',
    ),
    fields: ['/issue_receipt'],
    fix: say(
      'Registre el pago sin issue_receipt para los demás documentos.',
      'Record the payment without issue_receipt for other documents.',
    ),
    detail: 'A recibo electrónico de pago settles a factura electrónica (document_type 01)',
    errors: [
      {
        path: '/issue_receipt',
        code: 'receipt_not_applicable',
        message: 'A recibo electrónico de pago settles a factura electrónica (document_type 01)',
      },
    ],
  },
  received_document_exists: {
    titleEs: 'Documento ya recibido',
    means: say(
      'Ya se recibió otro XML distinto con la misma clave; existing_received_document_id lo nombra. El mismo ' +
        'XML de nuevo responde 200 con el existente.',
      'Another, different XML with the same clave was already received; existing_received_document_id names ' +
        'it. The same XML again answers 200 with the existing one.',
    ),
    fields: ['existing_received_document_id'],
    fix: say('Use el documento existente.', 'Use the existing document.'),
    detail:
      'A different document with clave 50627112600310112345600100001010000000001100000001 was already received',
    extra: { existing_received_document_id: 'rcv_000000000003' },
  },
  already_answered: {
    titleEs: 'Documento ya respondido',
    means: say(
      'El documento recibido ya tiene respuesta (aceptación o rechazo); answer_status dice cuál.',
      'The received document already has an answer (acceptance or rejection); answer_status says which.',
    ),
    fields: ['answer_status'],
    fix: say(
      'Una respuesta no se cambia; consulte su resultado en GET /api/v1/received_documents/{id}.',
      'An answer is not changed; read its result at GET /api/v1/received_documents/{id}.',
    ),
    detail: 'Document rcv_000000000003 was already answered',
    extra: { answer_status: 'aceptada' },
  },
  invalid_xml: {
    titleEs: 'No es un comprobante legible',
    means: say(
      'xml_base64 no es un comprobante electrónico v4.4 legible: XML mal formado o le falta un elemento necesario.',
      'xml_base64 is not a readable v4.4 comprobante: malformed XML or a needed element is missing.',
    ),
    fields: ['/xml_base64'],
    fix: RECEIVED_FIX,
    detail: '<FacturaElectronica/Clave> is missing or empty',
    errors: [
      { path: '/xml_base64', code: 'invalid_xml', message: '<FacturaElectronica/Clave> is missing or empty' },
    ],
  },
  signature_invalid: {
    titleEs: 'Firma inválida',
    means: say(
      'La firma XAdES del comprobante no verifica: el documento cambió después de firmado o la firma no es del emisor.',
      "The document's XAdES signature does not verify: it changed after signing or the signature is not the emisor's.",
    ),
    fields: ['/xml_base64'],
    fix: RECEIVED_FIX,
    detail: 'The document is not signed with a certificate of its emisor',
    errors: [
      {
        path: '/xml_base64',
        code: 'signature_invalid',
        message: 'The document is not signed with a certificate of its emisor',
      },
    ],
  },
  signature_policy_invalid: {
    titleEs: 'La política de firma no es la v4.4 de Hacienda',
    means: say(
      'La firma es válida pero no declara la política de firma de Hacienda para la versión 4.4.',
      "The signature is valid but does not declare Hacienda's v4.4 signature policy.",
    ),
    fields: ['/xml_base64'],
    fix: say(
      'Pida al proveedor un comprobante firmado con la política v4.4.',
      'Ask the supplier for a document signed with the v4.4 policy.',
    ),
    detail:
      "La política de firma no es la de Hacienda v4.4 (the signature policy is not Hacienda's v4.4 one)",
    errors: [
      { path: '/xml_base64', code: 'signature_policy_invalid', message: "not Hacienda's v4.4 policy" },
    ],
  },
  receptor_mismatch: {
    titleEs: 'El documento no está dirigido a esta empresa',
    means: say(
      'El receptor del comprobante tiene otra identificación que la empresa.',
      "The document's receptor has another identification than the company.",
    ),
    fields: ['/xml_base64'],
    fix: say(
      'Registre el documento en la empresa a la que va dirigido.',
      'Record the document in the company it is addressed to.',
    ),
    detail: 'The document is addressed to 02 3101999999, not to this company (02 3101123456)',
    errors: [
      {
        path: '/xml_base64',
        code: 'receptor_mismatch',
        message: 'Receptor/Identificacion is not this company',
      },
    ],
  },
};
