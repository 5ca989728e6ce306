// The error catalogue: every stable error code the API can answer with, its HTTP status and
// title, in one place. Routes throw by code; api/errors.ts renders RFC 9457 problem+json.
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, title: 'Malformed JSON body' },
  invalid_request: { status: 400, title: 'Invalid request' },
  ambiguous_authorization: { status: 400, title: 'More than one Authorization header' },
  missing_api_key: { status: 401, title: 'API key required' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  api_key_expired: { status: 401, title: 'API key expired' },
  api_key_revoked: { status: 401, title: 'API key revoked' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  plan_not_included: { status: 403, title: 'Plan does not include the API' },
  session_invalid: { status: 401, title: 'Session ended' },
  invalid_credentials: { status: 401, title: 'Wrong email or password' },
  totp_required: { status: 401, title: 'Authentication code required' },
  invalid_totp: { status: 401, title: 'Wrong authentication code' },
  session_required: { status: 403, title: 'Only for people signed in' },
  not_a_member: { status: 403, title: 'Not a member of this company' },
  live_not_enabled: { status: 403, title: 'The company has not gone live' },
  csrf_invalid: { status: 403, title: 'Missing or wrong CSRF token' },
  email_unconfirmed: { status: 403, title: 'Email address not confirmed' },
  invitation_other_email: { status: 403, title: 'The invitation was sent to another email address' },
  owner_required: { status: 403, title: 'Only an owner may do this' },
  company_required: { status: 400, title: 'Factura-Company header required' },
  token_invalid: { status: 400, title: 'Link invalid, expired or already used' },
  email_taken: { status: 409, title: 'Email address already registered' },
  last_owner: { status: 409, title: 'The last owner cannot be removed or demoted' },
  already_member: { status: 409, title: 'Already a member of this company' },
  totp_already_enabled: { status: 409, title: 'Two-step authentication already on' },
  totp_not_pending: { status: 409, title: 'No authentication code set-up pending' },
  company_exists: { status: 409, title: 'A company with this identification already exists' },
  admin_credentials_required: { status: 401, title: 'Admin credentials required' },
  resource_not_found: { status: 404, title: 'Resource not found' },
  route_not_found: { status: 404, title: 'Route not found' },
  taxpayer_not_found: { status: 404, title: "Not in Hacienda's taxpayer register" },
  exchange_rate_not_found: { status: 404, title: 'Hacienda publishes no exchange rate for that day' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  duplicate_client: { status: 409, title: 'Client already exists' },
  duplicate_external_id: { status: 409, title: 'Duplicate external_id' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  invalid_state: { status: 409, title: 'Invalid state for this operation' },
  company_incomplete: { status: 409, title: 'Company profile incomplete for issuing' },
  invoice_not_retryable: { status: 409, title: 'Invoice cannot be retried in its state' },
  retry_cause_persists: { status: 409, title: 'The cause of the failure is still there' },
  reference_not_accepted: { status: 409, title: 'Referenced document not accepted by Hacienda' },
  invoice_not_replaceable: { status: 409, title: 'Only a rejected invoice not yet replaced can be replaced' },
  received_document_exists: { status: 409, title: 'Document already received' },
  already_answered: { status: 409, title: 'Document already answered' },
  request_timeout: { status: 408, title: 'Request timeout' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  nesting_too_deep: { status: 422, title: 'JSON nested too deeply' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused with a different request' },
  invoice_not_payable: { status: 422, title: 'Invoice cannot be paid in its status' },
  invoice_already_paid: { status: 422, title: 'Invoice already paid' },
  payment_exceeds_balance: { status: 422, title: 'Payment exceeds the balance due' },
  credit_exceeds_total: { status: 422, title: "Credits would exceed the document's total" },
  document_not_creditable: { status: 422, title: 'This document type cannot be referenced by a note' },
  receipt_not_applicable: { status: 422, title: 'A payment receipt applies only to a credit sale' },
  invalid_xml: { status: 422, title: 'Not a readable comprobante' },
  signature_invalid: { status: 422, title: 'Invalid signature' },
  signature_policy_invalid: { status: 422, title: "Signature policy is not Hacienda's v4.4 policy" },
  receptor_mismatch: { status: 422, title: 'The document is not addressed to this company' },
  webhook_endpoint_limit: { status: 422, title: 'Too many webhook endpoints' },
  activity_not_registered: { status: 422, title: "Activity code not registered for the company's taxpayer" },
  p12_unreadable: { status: 422, title: 'Not a readable .p12 with an RSA key and its certificate' },
  p12_wrong_pin: { status: 422, title: 'The PIN does not open the .p12' },
  certificate_expired: { status: 422, title: 'The certificate has expired' },
  certificate_not_yet_valid: { status: 422, title: 'The certificate is not valid yet' },
  certificate_other_taxpayer: { status: 422, title: "The certificate is not the company's" },
  hacienda_credentials_rejected: { status: 422, title: "Hacienda's IDP refused the credentials" },
  logo_invalid: { status: 422, title: 'Not a PNG or JPEG image of the type given' },
  logo_too_large: { status: 422, title: 'Logo larger than 256 KB' },
  hacienda_credentials_missing: { status: 409, title: 'No Hacienda credentials stored for the mode' },
  branch_exists: { status: 409, title: 'The company already has a branch with that code' },
  go_live_checklist_incomplete: { status: 409, title: 'The go-live checklist is not complete' },
  rate_limited: { status: 429, title: 'Too many requests' },
  too_many_attempts: { status: 429, title: 'Too many sign-in attempts' },
  auth_rate_limited: { status: 429, title: 'Too many failed authentications' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service temporarily unavailable' },
  hacienda_unavailable: { status: 503, title: 'Hacienda cannot be reached' },
  exchange_rate_unavailable: { status: 503, title: 'No exchange rate can be had for the day' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One field-level problem inside a validation error. `path` is a JSON Pointer into the input. */
export interface FieldError {
  path: string;
  code: string;
  message: string;
}

/** A business-rule failure from pure code (domain/), carrying the offending field. */
export class DomainValidationError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.path}: ${e.message}`).join('; '));
    this.name = 'DomainValidationError';
  }
}
