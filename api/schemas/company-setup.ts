// Requests and answers of setting a company up: its .p12, its Hacienda API user, its logo, its
// branches and terminals, and the go-live checklist.
import { Type } from 'typebox';

const Mode = Type.Union([Type.Literal('test'), Type.Literal('live')], {
  description: 'test: the sandbox (the Hacienda simulator); live: production',
});

export const CertificateBody = Type.Object(
  {
    mode: Mode,
    p12_base64: Type.String({
      minLength: 1,
      maxLength: 200_000,
      description: 'The .p12 (llave criptográfica) Hacienda issued, base64',
    }),
    pin: Type.String({ minLength: 1, maxLength: 100, description: 'Its PIN' }),
  },
  { additionalProperties: false, examples: [{ mode: 'test', p12_base64: 'MIIJ…', pin: '1234' }] },
);

export const CertificateAnswer = Type.Object(
  {
    mode: Mode,
    subject: Type.String(),
    not_after: Type.String({ format: 'date-time' }),
  },
  { title: 'CompanyCertificate' },
);

export const HaciendaCredentialsBody = Type.Object(
  {
    mode: Mode,
    username: Type.String({
      minLength: 3,
      maxLength: 200,
      examples: ['cpj-3-101-123456@prod.comprobanteselectronicos.go.cr'],
    }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  {
    additionalProperties: false,
    examples: [
      { mode: 'test', username: 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr', password: 's3cr3t' },
    ],
  },
);

export const HaciendaCredentialsTestBody = Type.Object(
  { mode: Mode },
  { additionalProperties: false, examples: [{ mode: 'test' }] },
);

export const HaciendaCredentialsAnswer = Type.Object(
  {
    mode: Mode,
    username: Type.String(),
    verified_at: Type.String({ format: 'date-time', description: "When Hacienda's IDP accepted them" }),
  },
  { title: 'HaciendaCredentials' },
);

export const LogoBody = Type.Object(
  {
    content_type: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]),
    data_base64: Type.String({
      minLength: 1,
      maxLength: 700_000,
      description: 'The image, base64 (at most 256 KB once decoded)',
    }),
  },
  { additionalProperties: false, examples: [{ content_type: 'image/png', data_base64: 'iVBORw0KGgo…' }] },
);

export const LogoAnswer = Type.Object(
  {
    content_type: Type.String(),
    size: Type.Integer({ description: 'Bytes' }),
    width: Type.Integer(),
    height: Type.Integer(),
    sha256: Type.String(),
  },
  { title: 'CompanyLogo' },
);

const Terminal = Type.Object(
  {
    code: Type.String({ pattern: '^\\d{5}$', description: 'Terminal (positions 4-8 of the consecutivo)' }),
    name: Type.String({ minLength: 1, maxLength: 80 }),
  },
  { additionalProperties: false },
);

export const BranchObject = Type.Object(
  {
    code: Type.String({ examples: ['001'] }),
    name: Type.String(),
    terminals: Type.Array(Type.Object({ code: Type.String(), name: Type.String() })),
  },
  { title: 'Branch' },
);

export const BranchList = Type.Object({ data: Type.Array(BranchObject) }, { title: 'BranchList' });

export const CreateBranchBody = Type.Object(
  {
    code: Type.String({ pattern: '^\\d{3}$', description: 'Sucursal (positions 1-3 of the consecutivo)' }),
    name: Type.String({ minLength: 1, maxLength: 80 }),
    terminals: Type.Optional(
      Type.Array(Terminal, {
        maxItems: 200,
        description: "Default: one terminal, the company's default terminal code, named Terminal principal",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ code: '001', name: 'Casa matriz', terminals: [{ code: '00001', name: 'Caja 1' }] }],
  },
);

export const UpdateBranchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    terminals: Type.Optional(
      Type.Array(Terminal, { maxItems: 200, description: "The branch's whole list of terminals" }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ name: 'Sucursal Heredia' }] },
);

export const BranchParams = Type.Object({ code: Type.String({ pattern: '^\\d{3}$' }) });

export const GoLiveObject = Type.Object(
  {
    ready: Type.Boolean(),
    live_enabled: Type.Boolean(),
    checklist: Type.Array(
      Type.Object({
        item: Type.Union([
          Type.Literal('live_certificate'),
          Type.Literal('live_credentials'),
          Type.Literal('sandbox_document_accepted'),
        ]),
        done: Type.Boolean(),
        label_es: Type.String(),
        label_en: Type.String(),
      }),
    ),
  },
  { title: 'GoLive' },
);
