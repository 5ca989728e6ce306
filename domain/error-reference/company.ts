// The reference of the codes about the company: its set-up (certificate, Hacienda credentials,
// logo, branches, going live), its members, its clients and webhooks, and Hacienda's public data.
import { say, type ReferencePart } from './entry.ts';

type CompanyCode =
  | 'invitation_other_email'
  | 'owner_required'
  | 'last_owner'
  | 'already_member'
  | 'company_exists'
  | 'company_incomplete'
  | 'activity_not_registered'
  | 'p12_unreadable'
  | 'p12_wrong_pin'
  | 'certificate_expired'
  | 'certificate_not_yet_valid'
  | 'certificate_other_taxpayer'
  | 'hacienda_credentials_rejected'
  | 'hacienda_credentials_missing'
  | 'logo_invalid'
  | 'logo_too_large'
  | 'branch_exists'
  | 'go_live_checklist_incomplete'
  | 'webhook_endpoint_limit'
  | 'duplicate_client'
  | 'taxpayer_not_found'
  | 'exchange_rate_not_found'
  | 'hacienda_unavailable'
  | 'exchange_rate_unavailable';

const NEW_P12 = say(
  'Suba el .p12 vigente de la empresa (el de la firma digital de Hacienda) con su PIN; no se guardó nada.',
  "Upload the company's current .p12 (Hacienda's signing certificate) with its PIN; nothing was stored.",
);

export const COMPANY_ERRORS: ReferencePart<CompanyCode> = {
  invitation_other_email: {
    titleEs: 'La invitación se envió a otro correo',
    means: say(
      'La invitación es para otro correo distinto del de la cuenta que la quiere aceptar.',
      'The invitation is for another email than the one of the account accepting it.',
    ),
    fields: [],
    fix: say(
      'Acéptela con la cuenta del correo invitado, o pida una invitación a su correo.',
      'Accept it with the account of the invited email, or ask for an invitation to yours.',
    ),
    detail: 'This invitation was sent to another email address',
  },
  owner_required: {
    titleEs: 'Solo un propietario puede hacerlo',
    means: say(
      'Cambiar o quitar a un propietario, o nombrar uno, es solo para propietarios.',
      'Changing or removing an owner, or making one, is for owners only.',
    ),
    fields: [],
    fix: say('Pida el cambio a un propietario de la empresa.', 'Ask an owner of the company for the change.'),
    detail: 'Solo un propietario puede hacerlo (only an owner may do this)',
  },
  last_owner: {
    titleEs: 'No se puede quitar ni degradar al último propietario',
    means: say(
      'El cambio dejaría a la empresa sin propietarios.',
      'The change would leave the company without owners.',
    ),
    fields: [],
    fix: say(
      'Nombre primero a otro propietario (PATCH /api/v1/members/{id} con role owner) y repita el cambio.',
      'First make another member an owner (PATCH /api/v1/members/{id} with role owner), then repeat the change.',
    ),
    detail: 'La empresa necesita al menos un propietario (the company needs at least one owner)',
  },
  already_member: {
    titleEs: 'Ya es miembro de esta empresa',
    means: say(
      'Código reservado: hoy ningún llamado lo responde. Aceptar una invitación siendo ya miembro conserva el ' +
        'rol que tenía y responde con éxito.',
      'A reserved code: no call answers it today. Accepting an invitation while already a member keeps the ' +
        'role held and succeeds.',
    ),
    fields: [],
    fix: say(
      'Nada que corregir; para cambiar el rol use PATCH /api/v1/members/{id}.',
      'Nothing to correct; to change the role use PATCH /api/v1/members/{id}.',
    ),
    detail: 'Already a member of this company',
  },
  company_exists: {
    titleEs: 'Ya existe una empresa con esa identificación',
    means: say(
      'Otra empresa del servicio ya tiene esa cédula.',
      'Another company of the service already has that identification.',
    ),
    fields: ['/identification'],
    fix: say(
      'Pida a un propietario de esa empresa que lo invite, en vez de crearla de nuevo.',
      'Ask an owner of that company to invite you instead of creating it again.',
    ),
    detail: 'A company with identification 3101123456 is already registered',
    errors: [{ path: '/identification', code: 'company_exists', message: 'is already registered' }],
  },
  company_incomplete: {
    titleEs: 'Perfil de la empresa incompleto para emitir',
    means: say(
      'La empresa todavía no puede emitir en este modo: faltan datos del emisor, el certificado de firma del ' +
        'modo o (en producción) el usuario de la API de Hacienda. missing los lista.',
      'The company cannot issue in this mode yet: emisor data, the signing certificate of the mode or (live) ' +
        'the Hacienda API user are missing. missing lists them.',
    ),
    fields: ['missing'],
    fix: say(
      'Complete lo que lista missing (PATCH /api/v1/company, PUT /api/v1/company/certificate, ' +
        'PUT /api/v1/company/hacienda_credentials) y emita de nuevo.',
      'Complete what missing lists (PATCH /api/v1/company, PUT /api/v1/company/certificate, ' +
        'PUT /api/v1/company/hacienda_credentials) and issue again.',
    ),
    detail: 'The company cannot issue yet; missing: signing certificate (sandbox)',
    extra: { missing: ['signing certificate (sandbox)'] },
  },
  activity_not_registered: {
    titleEs: 'Actividad no inscrita para el contribuyente',
    means: say(
      'El código de actividad económica no está inscrito para la cédula de la empresa en el registro de Hacienda.',
      "The economic activity code is not registered for the company's identification in Hacienda's register.",
    ),
    fields: ['/activity_code', 'registered_activities'],
    fix: say(
      'Use uno de los códigos de registered_activities, o inscriba la actividad en Hacienda primero.',
      'Use one of the codes in registered_activities, or register the activity with Hacienda first.',
    ),
    detail:
      'La actividad 999999 no está inscrita (activity 999999 is not registered for this company at Hacienda)',
    errors: [
      {
        path: '/activity_code',
        code: 'activity_not_registered',
        message: 'activity 999999 is not registered',
      },
    ],
    extra: { registered_activities: [{ code: '620100', description: 'Programación informática' }] },
  },
  p12_unreadable: {
    titleEs: 'No es un .p12 legible con llave RSA y su certificado',
    means: say(
      'p12_base64 no es base64 de un archivo .p12 (PKCS#12) que se pueda leer, o no trae una llave privada RSA ' +
        'con su certificado.',
      'p12_base64 is not the base64 of a readable .p12 (PKCS#12) file, or it lacks an RSA private key with its ' +
        'certificate.',
    ),
    fields: ['/p12_base64'],
    fix: NEW_P12,
    detail: 'no es un archivo .p12 legible; no se guardó nada (not a readable .p12; nothing was stored)',
    errors: [{ path: '/p12_base64', code: 'p12_unreadable', message: 'not a readable .p12' }],
  },
  p12_wrong_pin: {
    titleEs: 'El PIN no abre el .p12',
    means: say('El PIN enviado no abre el archivo .p12.', 'The PIN sent does not open the .p12 file.'),
    fields: ['/pin'],
    fix: say(
      'Envíe el PIN de 4 dígitos que Hacienda dio con el certificado.',
      'Send the 4-digit PIN Hacienda gave with the certificate.',
    ),
    detail:
      'el PIN no abre este .p12; no se guardó nada (the PIN does not open the .p12; nothing was stored)',
    errors: [{ path: '/pin', code: 'p12_wrong_pin', message: 'the PIN does not open the .p12' }],
  },
  certificate_expired: {
    titleEs: 'El certificado venció',
    means: say(
      'El certificado del .p12 ya venció: al subirlo, o al firmar un comprobante.',
      'The certificate of the .p12 has expired: when uploaded, or when a comprobante is signed.',
    ),
    fields: ['/p12_base64'],
    fix: NEW_P12,
    detail: 'el certificado venció; no se guardó nada (the certificate has expired; nothing was stored)',
    errors: [{ path: '/p12_base64', code: 'certificate_expired', message: 'the certificate has expired' }],
  },
  certificate_not_yet_valid: {
    titleEs: 'El certificado aún no es válido',
    means: say(
      'La fecha de inicio de vigencia del certificado todavía no llega.',
      "The certificate's validity has not started yet.",
    ),
    fields: ['/p12_base64'],
    fix: say(
      'Súbalo cuando empiece su vigencia, o revise la hora del equipo que lo generó.',
      'Upload it once its validity starts, or check the clock of the machine that made it.',
    ),
    detail:
      'el certificado aún no es válido; no se guardó nada (the certificate is not valid yet; nothing was stored)',
    errors: [
      { path: '/p12_base64', code: 'certificate_not_yet_valid', message: 'the certificate is not valid yet' },
    ],
  },
  certificate_other_taxpayer: {
    titleEs: 'El certificado no es de la empresa',
    means: say(
      'El certificado pertenece a otra cédula distinta de la de la empresa.',
      "The certificate belongs to another identification than the company's.",
    ),
    fields: ['/p12_base64'],
    fix: NEW_P12,
    detail:
      'el certificado es de otro contribuyente; no se guardó nada (the certificate is not the company’s; nothing was stored)',
    errors: [
      { path: '/p12_base64', code: 'certificate_other_taxpayer', message: 'another taxpayer’s certificate' },
    ],
  },
  hacienda_credentials_rejected: {
    titleEs: 'El IDP de Hacienda rechazó las credenciales',
    means: say(
      'El servicio de identidad (IDP) de Hacienda no aceptó el usuario y la contraseña de la API de Hacienda.',
      "Hacienda's identity service (IDP) did not accept the Hacienda API username and password.",
    ),
    fields: ['/password', 'idp_error'],
    fix: say(
      'Copie el usuario (cpf-… o cpj-…) y la contraseña que generó en ATV para el modo correcto; no se guardó nada.',
      'Copy the username (cpf-… or cpj-…) and password generated in ATV for the right mode; nothing was stored.',
    ),
    detail:
      "El IDP de Hacienda rechazó el usuario o la contraseña; no se guardó nada (Hacienda's IDP refused them)",
    errors: [
      { path: '/password', code: 'hacienda_credentials_rejected', message: "Hacienda's IDP refused them" },
    ],
    extra: { idp_error: 'invalid_grant' },
  },
  hacienda_credentials_missing: {
    titleEs: 'No hay credenciales de Hacienda guardadas para el modo',
    means: say(
      'Se pidió probar las credenciales de Hacienda de un modo que no tiene ninguna guardada.',
      'Testing the Hacienda credentials of a mode was asked and none are stored for it.',
    ),
    fields: [],
    fix: say(
      'Guárdelas antes con PUT /api/v1/company/hacienda_credentials.',
      'Store them first with PUT /api/v1/company/hacienda_credentials.',
    ),
    detail:
      'No hay usuario de Hacienda guardado para el modo live (no Hacienda credentials are stored for mode live)',
  },
  logo_invalid: {
    titleEs: 'No es una imagen PNG o JPEG del tipo indicado',
    means: say(
      'data_base64 no es base64, o no es una imagen legible del content_type dado, o mide más de 4096 px por lado.',
      'data_base64 is not base64, or not a readable image of the content_type given, or over 4096 px a side.',
    ),
    fields: ['/data_base64'],
    fix: say(
      'Envíe un PNG o JPEG real, con content_type image/png o image/jpeg según corresponda.',
      'Send a real PNG or JPEG, with content_type image/png or image/jpeg to match.',
    ),
    detail: 'no es una imagen PNG legible (not a readable PNG image)',
    errors: [{ path: '/data_base64', code: 'invalid_image', message: 'not a readable PNG image' }],
  },
  logo_too_large: {
    titleEs: 'Logo de más de 256 KB',
    means: say(
      'La imagen pesa más de 256 KB (262144 bytes).',
      'The image is larger than 256 KB (262144 bytes).',
    ),
    fields: ['/data_base64'],
    fix: say(
      'Reduzca o comprima la imagen y envíela de nuevo.',
      'Shrink or compress the image and send it again.',
    ),
    detail: 'la imagen pesa 400000 bytes; el máximo es 262144 (256 KB)',
    errors: [{ path: '/data_base64', code: 'too_large', message: 'image of 400000 bytes; at most 256 KB' }],
  },
  branch_exists: {
    titleEs: 'La empresa ya tiene una sucursal con ese código',
    means: say('Ya existe una sucursal con ese código.', 'A branch with that code already exists.'),
    fields: [],
    fix: say(
      'Use otro código, o cambie la existente con PATCH /api/v1/company/branches/{code}.',
      'Use another code, or change the existing one with PATCH /api/v1/company/branches/{code}.',
    ),
    detail: 'La sucursal 002 ya existe (branch 002 already exists)',
  },
  go_live_checklist_incomplete: {
    titleEs: 'La lista para pasar a producción no está completa',
    means: say(
      'Se pidió pasar a producción y falta algo de la lista; missing dice qué.',
      'Going live was asked and items of the checklist are missing; missing says which.',
    ),
    fields: ['missing'],
    fix: say(
      'Complete lo que lista GET /api/v1/company/go_live y repita.',
      'Complete what GET /api/v1/company/go_live lists and repeat.',
    ),
    detail:
      'Falta para pasar a producción: live_certificate, live_credentials (missing before going live: live_certificate, live_credentials)',
    extra: { missing: ['live_certificate', 'live_credentials'] },
  },
  webhook_endpoint_limit: {
    titleEs: 'Demasiados webhooks',
    means: say(
      'La empresa ya tiene 16 destinos de webhook en este modo.',
      'The company already has 16 webhook endpoints in this mode.',
    ),
    fields: [],
    fix: say(
      'Borre uno que no use (DELETE /api/v1/webhook_endpoints/{id}) o reúna eventos en uno solo.',
      'Delete an unused one (DELETE /api/v1/webhook_endpoints/{id}) or gather events into one.',
    ),
    detail: 'At most 16 webhook endpoints per mode; delete one first',
  },
  duplicate_client: {
    titleEs: 'El cliente ya existe',
    means: say(
      'Ya hay un cliente con esa identificación en la empresa y el modo; existing_client_id lo nombra.',
      'A client with that identification already exists in the company and mode; existing_client_id names it.',
    ),
    fields: ['existing_client_id'],
    fix: say(
      'Use el cliente existente (o cámbielo con PATCH /api/v1/clients/{id}).',
      'Use the existing client (or change it with PATCH /api/v1/clients/{id}).',
    ),
    detail: 'A client with identification 3101123456 already exists',
    extra: { existing_client_id: 'cli_000000000012' },
  },
  taxpayer_not_found: {
    titleEs: 'No está en el registro de contribuyentes de Hacienda',
    means: say(
      'Hacienda no tiene esa cédula en su registro de contribuyentes (consulta GET /api/v1/taxpayers/{cedula}). ' +
        'Cuando la cédula viene en un cuerpo, la respuesta es validation_failed con este código en errors[].',
      "Hacienda's taxpayer register has no such identification (GET /api/v1/taxpayers/{cedula}). When the " +
        'number comes in a body, the answer is validation_failed with this code in errors[].',
    ),
    fields: [],
    fix: say(
      'Revise los dígitos (sin guiones); una persona no inscrita puede ser receptor sin consulta.',
      'Check the digits (no dashes); an unregistered person can still be a receptor, without the lookup.',
    ),
    detail:
      "Hacienda no tiene a 199999999 en su registro de contribuyentes (199999999 is not in Hacienda's taxpayer register)",
  },
  exchange_rate_not_found: {
    titleEs: 'Hacienda no publica tipo de cambio para ese día',
    means: say(
      'Hacienda no tiene tipo de cambio del dólar para la fecha pedida.',
      'Hacienda has no dollar exchange rate for the date asked.',
    ),
    fields: [],
    fix: say('Pida otra fecha (no posterior a hoy).', 'Ask for another date (not after today).'),
    detail: 'Hacienda no publica tipo de cambio para 2026-01-01 (Hacienda publishes no rate for 2026-01-01)',
  },
  hacienda_unavailable: {
    titleEs: 'No se puede contactar a Hacienda',
    means: say(
      'El servicio público o el IDP de Hacienda no respondió (reason: timeout, connection, server_error, ' +
        'rate_limited, bad_answer). No se guardó nada.',
      "Hacienda's public service or IDP did not answer (reason: timeout, connection, server_error, " +
        'rate_limited, bad_answer). Nothing was stored.',
    ),
    fields: ['reason', 'Retry-After'],
    fix: say('Reintente después de Retry-After.', 'Retry after Retry-After.'),
    detail:
      "No se pudo consultar el servicio público de Hacienda (timeout) (Hacienda's public service could not be reached)",
    extra: { reason: 'timeout' },
  },
  exchange_rate_unavailable: {
    titleEs: 'No se puede obtener el tipo de cambio del día',
    means: say(
      'Un comprobante en dólares sin exchange_rate necesita el tipo de cambio de hoy, y ni está guardado ni ' +
        'Hacienda respondió.',
      'A document in dollars without exchange_rate needs today’s rate, and none is stored nor did Hacienda answer.',
    ),
    fields: ['/exchange_rate', 'Retry-After'],
    fix: say(
      'Indique exchange_rate en el cuerpo, o reintente después de Retry-After.',
      'Give exchange_rate in the body, or retry after Retry-After.',
    ),
    detail:
      'No hay tipo de cambio del dólar para 2026-11-27 (no dollar exchange rate for 2026-11-27; give exchange_rate)',
    errors: [
      { path: '/exchange_rate', code: 'exchange_rate_unavailable', message: 'no rate for 2026-11-27' },
    ],
  },
};
