// The reference of the codes about who is calling: API keys, people's sessions, accounts,
// memberships and the admin area.
import { say, type ReferencePart } from './entry.ts';

type AccessCode =
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'api_key_expired'
  | 'api_key_revoked'
  | 'insufficient_scope'
  | 'plan_not_included'
  | 'admin_credentials_required'
  | 'session_invalid'
  | 'invalid_credentials'
  | 'totp_required'
  | 'invalid_totp'
  | 'too_many_attempts'
  | 'session_required'
  | 'not_a_member'
  | 'live_not_enabled'
  | 'csrf_invalid'
  | 'email_unconfirmed'
  | 'company_required'
  | 'token_invalid'
  | 'email_taken'
  | 'totp_already_enabled'
  | 'totp_not_pending';

const SEND_KEY = say(
  'Envíe su llave de API en el encabezado Authorization: Bearer ik_live_… (o ik_test_… para pruebas).',
  'Send your API key in the header Authorization: Bearer ik_live_… (or ik_test_… for the sandbox).',
);

export const ACCESS_ERRORS: ReferencePart<AccessCode> = {
  missing_api_key: {
    titleEs: 'Se requiere una llave de API',
    means: say(
      'La solicitud no trae Authorization ni una sesión: la API no sabe quién llama.',
      'The request carries no Authorization and no session: the API does not know who is calling.',
    ),
    fields: ['WWW-Authenticate'],
    fix: SEND_KEY,
    detail: 'Send your API key as Authorization: Bearer <key>',
  },
  invalid_api_key: {
    titleEs: 'Llave de API inválida',
    means: say(
      'La llave no tiene el formato de una llave (ik_live_… o ik_test_…) o no corresponde a ninguna llave.',
      'The key does not have the form of a key (ik_live_… or ik_test_…) or matches no key.',
    ),
    fields: ['WWW-Authenticate'],
    fix: say(
      'Copie la llave completa tal como se mostró al crearla, sin espacios ni comillas; si se perdió, cree otra.',
      'Copy the whole key as it was shown when created, without spaces or quotes; if it is lost, create another.',
    ),
    detail: 'The API key is not valid',
  },
  api_key_expired: {
    titleEs: 'Llave de API vencida',
    means: say(
      'Este secreto de la llave venció: la llave se rotó (POST /api/v1/keys/{id}/roll) y el plazo del secreto ' +
        'anterior terminó.',
      'This secret of the key has expired: the key was rolled (POST /api/v1/keys/{id}/roll) and the old ' +
        "secret's grace period ended.",
    ),
    fields: ['WWW-Authenticate'],
    fix: say('Use el secreto nuevo que devolvió la rotación.', 'Use the new secret the roll returned.'),
    detail: 'This secret of the API key has expired; use the rolled secret',
  },
  api_key_revoked: {
    titleEs: 'Llave de API revocada',
    means: say(
      'La llave fue revocada (DELETE /api/v1/keys/{id}).',
      'The key was revoked (DELETE /api/v1/keys/{id}).',
    ),
    fields: ['WWW-Authenticate'],
    fix: say(
      'Cree una llave nueva con los alcances que necesita y reemplácela en su integración.',
      'Create a new key with the scopes you need and replace it in your integration.',
    ),
    detail: 'The API key has been revoked',
  },
  insufficient_scope: {
    titleEs: 'Alcance insuficiente',
    means: say(
      'La llave (o el rol de la persona en la empresa) no tiene el alcance que pide la ruta; emitir ' +
        '(send distinto de false) pide write:invoices. El cuerpo no se valida antes de este chequeo.',
      'The key (or the person’s role in the company) lacks the scope the route needs; issuing (send other ' +
        'than false) needs write:invoices. The body is not validated before this check.',
    ),
    fields: ['required_scope'],
    fix: say(
      'Use una llave con el alcance de required_scope (o uno de ellos, si es una lista), o pida a un propietario ' +
        'que se lo conceda.',
      'Use a key with the scope in required_scope (or one of them, when it is a list), or ask an owner to grant it.',
    ),
    detail: 'This API key lacks the write:invoices scope',
    extra: { required_scope: 'write:invoices' },
  },
  plan_not_included: {
    titleEs: 'El plan no incluye la API',
    means: say(
      'El plan de la empresa no incluye el uso de la API con llaves.',
      "The company's plan does not include using the API with keys.",
    ),
    fields: [],
    fix: say('Cambie a un plan Business o Corporate.', 'Upgrade to the Business or Corporate plan.'),
    detail: 'The pyme plan does not include the API; upgrade to Business or Corporate',
  },
  admin_credentials_required: {
    titleEs: 'Se requieren credenciales de administración',
    means: say(
      'Las páginas de administración (/metrics, /admin/queues) piden usuario y contraseña de administración ' +
        '(HTTP Basic); sin ADMIN_PASSWORD configurada están deshabilitadas.',
      'The admin pages (/metrics, /admin/queues) ask for the admin user and password (HTTP Basic); without ' +
        'ADMIN_PASSWORD set they are disabled.',
    ),
    fields: ['WWW-Authenticate'],
    fix: say(
      'Envíe Authorization: Basic con ADMIN_USER y ADMIN_PASSWORD del servicio.',
      "Send Authorization: Basic with the service's ADMIN_USER and ADMIN_PASSWORD.",
    ),
    detail: 'Admin credentials required',
  },
  session_invalid: {
    titleEs: 'La sesión terminó',
    means: say(
      'La cookie de sesión ya no corresponde a una sesión abierta: venció, se cerró o se cerró desde otra sesión.',
      'The session cookie no longer matches an open session: it expired, was signed out or ended from another session.',
    ),
    fields: [],
    fix: say('Inicie sesión de nuevo (POST /api/v1/session).', 'Sign in again (POST /api/v1/session).'),
    detail: 'Your session has ended; sign in again',
  },
  invalid_credentials: {
    titleEs: 'Correo o contraseña incorrectos',
    means: say(
      'El correo no tiene cuenta o la contraseña no es la suya; la respuesta no dice cuál de los dos.',
      'The email has no account or the password is not its own; the answer does not say which.',
    ),
    fields: [],
    fix: say(
      'Revise ambos; si olvidó la contraseña, pida un enlace con POST /api/v1/account/password_reset.',
      'Check both; if the password is forgotten, ask for a link with POST /api/v1/account/password_reset.',
    ),
    detail: 'Correo o contraseña incorrectos (wrong email or password)',
  },
  totp_required: {
    titleEs: 'Se requiere el código de autenticación',
    means: say(
      'La cuenta tiene el ingreso en dos pasos activo y no vino totp_code.',
      'The account has two-step sign-in on and no totp_code came.',
    ),
    fields: ['/totp_code'],
    fix: say(
      'Repita el ingreso con totp_code: el código de 6 dígitos de su aplicación de autenticación.',
      'Sign in again with totp_code: the 6-digit code of your authenticator app.',
    ),
    detail: 'Indique el código de su aplicación de autenticación (give your authenticator code)',
    errors: [{ path: '/totp_code', code: 'required', message: 'is required' }],
  },
  invalid_totp: {
    titleEs: 'Código de autenticación incorrecto',
    means: say(
      'El código de 6 dígitos no es el actual de la aplicación de autenticación (al ingresar, al activar o al ' +
        'desactivar el ingreso en dos pasos).',
      'The 6-digit code is not the current one of the authenticator app (signing in, turning two-step sign-in ' +
        'on or off).',
    ),
    fields: ['/totp_code', '/code'],
    fix: say(
      'Revise la hora del teléfono y envíe el código que muestra la aplicación en ese momento.',
      "Check the phone's clock and send the code the app shows at that moment.",
    ),
    detail: 'El código no es correcto (the code is wrong)',
    errors: [{ path: '/totp_code', code: 'invalid_totp', message: 'is wrong or expired' }],
  },
  too_many_attempts: {
    titleEs: 'Demasiados intentos de ingreso',
    means: say(
      'Hubo demasiados ingresos fallidos en 15 minutos: 5 para el mismo correo o 30 desde la misma dirección.',
      'There were too many failed sign-ins within 15 minutes: 5 for one email or 30 from one address.',
    ),
    fields: ['Retry-After'],
    fix: say(
      'Espere los segundos de Retry-After; si olvidó la contraseña, restablézcala.',
      'Wait the Retry-After seconds; if the password is forgotten, reset it.',
    ),
    detail:
      'Demasiados intentos fallidos; espere antes de intentar de nuevo (too many failed attempts; wait before trying again)',
  },
  session_required: {
    titleEs: 'Solo para personas con sesión iniciada',
    means: say(
      'La ruta es de la cuenta de una persona (su perfil, sus sesiones, crear empresas): no acepta llaves de API.',
      "The route belongs to a person's account (profile, sessions, creating companies): API keys are refused.",
    ),
    fields: [],
    fix: say(
      'Llame la ruta desde la aplicación con la sesión iniciada (cookie y X-CSRF-Token), sin Authorization.',
      'Call the route from the application, signed in (cookie and X-CSRF-Token), without Authorization.',
    ),
    detail: 'This route is for people signed in to the application, not API keys',
  },
  not_a_member: {
    titleEs: 'No es miembro de esta empresa',
    means: say(
      'La persona con sesión no es miembro de la empresa que nombra Factura-Company.',
      'The signed-in person is not a member of the company Factura-Company names.',
    ),
    fields: ['header:factura-company'],
    fix: say(
      'Use el id de una de sus empresas (GET /api/v1/session las lista) o pida una invitación.',
      'Use the id of one of your companies (GET /api/v1/session lists them) or ask for an invitation.',
    ),
    detail: 'You are not a member of company cmp_000000000007',
  },
  live_not_enabled: {
    titleEs: 'La empresa no ha pasado a producción',
    means: say(
      'Se pidió Factura-Mode: live para una empresa que todavía no pasó a producción.',
      'Factura-Mode: live was asked for a company that has not gone live yet.',
    ),
    fields: ['header:factura-mode'],
    fix: say(
      'Trabaje en Factura-Mode: test, o complete la lista de GET /api/v1/company/go_live y pase a producción.',
      'Work in Factura-Mode: test, or complete the GET /api/v1/company/go_live checklist and go live.',
    ),
    detail: 'This company has not gone live yet; use Factura-Mode: test',
  },
  csrf_invalid: {
    titleEs: 'Token CSRF ausente o incorrecto',
    means: say(
      'Una escritura con la cookie de sesión llegó sin X-CSRF-Token o con uno que no es el de la sesión.',
      "A write with the session cookie came without X-CSRF-Token or with one that is not the session's.",
    ),
    fields: [],
    fix: say(
      'Envíe X-CSRF-Token con el csrf_token que devolvió el ingreso (o GET /api/v1/session).',
      'Send X-CSRF-Token with the csrf_token the sign-in (or GET /api/v1/session) returned.',
    ),
    detail: 'Send the X-CSRF-Token header with the token of your session',
  },
  email_unconfirmed: {
    titleEs: 'Correo sin confirmar',
    means: say(
      'La contraseña es correcta pero el correo de la cuenta aún no se confirmó.',
      "The password is right but the account's email is not confirmed yet.",
    ),
    fields: [],
    fix: say(
      'Abra el enlace del correo de confirmación (POST /api/v1/account/confirm con su token).',
      'Open the link of the confirmation email (POST /api/v1/account/confirm with its token).',
    ),
    detail: 'Confirme su correo con el enlace que le enviamos (confirm your email first)',
  },
  company_required: {
    titleEs: 'Falta el encabezado Factura-Company',
    means: say(
      'Una persona con sesión llamó una ruta de empresa sin decir para cuál empresa actúa.',
      'A signed-in person called a company route without saying which company they act for.',
    ),
    fields: ['header:factura-company'],
    fix: say(
      'Envíe Factura-Company: cmp_… (y Factura-Mode: test o live).',
      'Send Factura-Company: cmp_… (and Factura-Mode: test or live).',
    ),
    detail: 'Say which company you act for: header Factura-Company: cmp_…',
    errors: [{ path: 'header:factura-company', code: 'required', message: 'is required' }],
  },
  token_invalid: {
    titleEs: 'Enlace inválido, vencido o ya usado',
    means: say(
      'El token de confirmación, de restablecimiento de contraseña o de invitación no existe, venció o ya se usó.',
      'The confirmation, password-reset or invitation token does not exist, has expired or was already used.',
    ),
    fields: ['/token', '/invitation_token'],
    fix: say(
      'Pida un enlace nuevo (otro restablecimiento, otra invitación) y úselo una sola vez.',
      'Ask for a new link (another reset, another invitation) and use it once.',
    ),
    detail: 'El enlace no es válido, venció o ya se usó (the link is invalid, expired or used)',
    errors: [{ path: '/token', code: 'token_invalid', message: 'is invalid, expired or already used' }],
  },
  email_taken: {
    titleEs: 'Correo ya registrado',
    means: say('Ya existe una cuenta con ese correo.', 'An account with that email already exists.'),
    fields: ['/email'],
    fix: say(
      'Inicie sesión con ese correo o restablezca su contraseña.',
      'Sign in with that email or reset its password.',
    ),
    detail: 'Ya hay una cuenta con este correo (an account with this email exists)',
    errors: [{ path: '/email', code: 'email_taken', message: 'already has an account' }],
  },
  totp_already_enabled: {
    titleEs: 'El ingreso en dos pasos ya está activo',
    means: say(
      'Se pidió activar el ingreso en dos pasos y ya está activo.',
      'Turning two-step sign-in on was asked and it is already on.',
    ),
    fields: [],
    fix: say(
      'Para cambiar de aplicación, desactívelo (DELETE /api/v1/account/totp) y vuelva a activarlo.',
      'To change apps, turn it off (DELETE /api/v1/account/totp) and on again.',
    ),
    detail: 'Two-step sign-in is already on; turn it off first',
  },
  totp_not_pending: {
    titleEs: 'No hay configuración de código pendiente',
    means: say(
      'Se envió un código de confirmación sin haber iniciado la activación.',
      'A confirmation code was sent without starting the set-up.',
    ),
    fields: [],
    fix: say(
      'Empiece con POST /api/v1/account/totp y confirme luego con el código.',
      'Start with POST /api/v1/account/totp, then confirm with the code.',
    ),
    detail: 'Start with POST /api/v1/account/totp',
  },
};
