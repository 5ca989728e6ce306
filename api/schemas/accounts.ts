// People's accounts, sessions, memberships and invitations: what the application sends and gets.
import { Type } from 'typebox';
import { ROLES } from '../../domain/roles.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../domain/passwords.ts';
import { nameSchemas, Timestamp } from './common.ts';

const Email = Type.String({ format: 'email', maxLength: 254, examples: ['ana@empresa.example'] });
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX * 4 });
const Token = Type.String({ minLength: 1, maxLength: 200 });
const RoleName = Type.Union(
  [
    Type.Literal('owner'),
    Type.Literal('administrator'),
    Type.Literal('accountant'),
    Type.Literal('issuer'),
    Type.Literal('viewer'),
  ],
  { description: `One of ${ROLES.join(', ')}` },
);
const TotpCode = Type.String({ pattern: '^\\d{6}$', examples: ['123456'] });

export const UserObject = Type.Object({
  id: Type.String({ examples: ['usr_000000000001'] }),
  email: Type.String(),
  name: Type.String(),
  locale: Type.String({ examples: ['es-CR'] }),
  email_confirmed: Type.Boolean(),
  totp_enabled: Type.Boolean(),
});

export const MembershipObject = Type.Object({
  company: Type.Object({
    id: Type.String({ examples: ['cmp_000000000001'] }),
    name: Type.String(),
    identification: Type.String(),
    plan: Type.String(),
    live_enabled: Type.Boolean(),
  }),
  role: RoleName,
  scopes: Type.Array(Type.String()),
});

export const SessionAnswer = Type.Object({
  user: UserObject,
  memberships: Type.Array(MembershipObject),
  csrf_token: Type.String({ description: 'Send it as X-CSRF-Token on every POST, PUT, PATCH and DELETE' }),
});

export const UserAnswer = Type.Object({ user: UserObject });

export const AcceptedAnswer = Type.Object({ accepted: Type.Literal(true) });

export const SignUpBody = Type.Object(
  {
    email: Email,
    password: Type.String({ description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters, not the email` }),
    name: Type.String({ minLength: 1, maxLength: 120 }),
    locale: Type.Optional(Type.Union([Type.Literal('es-CR'), Type.Literal('en')])),
    invitation_token: Type.Optional(Token),
  },
  {
    additionalProperties: false,
    examples: [
      { email: 'ana@empresa.example', password: 'una frase larga 42', name: 'Ana Mora', locale: 'es-CR' },
    ],
  },
);

export const AccountPatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    locale: Type.Optional(Type.Union([Type.Literal('es-CR'), Type.Literal('en')])),
  },
  { additionalProperties: false, examples: [{ name: 'Ana Mora Solís', locale: 'en' }] },
);

export const TokenBody = Type.Object(
  { token: Token },
  { additionalProperties: false, examples: [{ token: 'q7J3n0x1VbYc8sLk2mPz4rT6wE9uA5hG1dF0jK3lM8n' }] },
);
export const EmailBody = Type.Object(
  { email: Email },
  { additionalProperties: false, examples: [{ email: 'ana@empresa.example' }] },
);
export const ResetConfirmBody = Type.Object(
  { token: Token, password: Type.String() },
  {
    additionalProperties: false,
    examples: [{ token: 'q7J3n0x1VbYc8sLk2mPz4rT6wE9uA5hG1dF0jK3lM8n', password: 'otra frase larga 43' }],
  },
);

export const SignInBody = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Password,
    totp_code: Type.Optional(Type.String({ maxLength: 12 })),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'ana@empresa.example', password: 'una frase larga 42' }],
  },
);

export const SessionObject = Type.Object({
  id: Type.String({ examples: ['ses_000000000001'] }),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  ip: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean(),
});

export const SessionList = Type.Object({ data: Type.Array(SessionObject) });

export const TotpSetup = Type.Object({
  secret: Type.String({ description: 'Base32, for typing into an authenticator app' }),
  otpauth_url: Type.String({ description: 'otpauth://totp/… for a QR code' }),
});

export const TotpCodeBody = Type.Object(
  { code: TotpCode },
  { additionalProperties: false, examples: [{ code: '123456' }] },
);

export const MemberObject = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }),
  role: RoleName,
  created_at: Timestamp,
});

export const InvitationObject = Type.Object({
  id: Type.String({ examples: ['ivt_000000000001'] }),
  email: Type.String(),
  role: RoleName,
  expires_at: Timestamp,
});

export const MemberList = Type.Object({
  data: Type.Array(MemberObject),
  invitations: Type.Array(InvitationObject),
});

export const InviteBody = Type.Object(
  { email: Email, role: RoleName },
  { additionalProperties: false, examples: [{ email: 'contador@empresa.example', role: 'accountant' }] },
);
export const RoleBody = Type.Object(
  { role: RoleName },
  { additionalProperties: false, examples: [{ role: 'issuer' }] },
);
export const MembershipAnswer = Type.Object({ membership: MembershipObject });

nameSchemas({
  User: UserObject,
  Membership: MembershipObject,
  SessionState: SessionAnswer,
  SignUpRequest: SignUpBody,
  AccountPatch: AccountPatchBody,
  SignInRequest: SignInBody,
  Session: SessionObject,
  SessionList,
  TotpSetup,
  Member: MemberObject,
  Invitation: InvitationObject,
  MemberList,
  InviteRequest: InviteBody,
  UserAnswer,
  MembershipAnswer,
  PasswordResetAccepted: AcceptedAnswer,
});
