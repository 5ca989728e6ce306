// @factura-cr/client: the typed client of the factura-cr API and its webhook verifier.
export {
  createFacturaClient,
  type CallInit,
  type CallOptions,
  type FacturaClient,
  type FacturaClientOptions,
  type InvoiceStatus,
  type ListItem,
  type ListPath,
  type PathsWith,
  type ResponseBody,
  type WaitOptions,
} from './client.ts';
export { FacturaApiError, type FieldError, type Problem, type ProblemCode } from './errors.ts';
export {
  constructWebhookEvent,
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  type SignatureHeaderValue,
  verifyWebhookSignature,
  WebhookSignatureError,
  type EventDataByKind,
  type EventKind,
  type InvoicePaidData,
  type VerifyFailure,
  type VerifyOptions,
  type VerifyResult,
  type WebhookEvent,
} from './webhook-signature.ts';
export type * from './schema.ts';
