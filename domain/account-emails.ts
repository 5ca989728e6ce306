// The emails of people's accounts (confirm the address, reset the password, an invitation), Spanish
// (Costa Rica) first and English second in one message, with the link the application opens.
import { ROLE_NAMES, type Role } from './roles.ts';

export interface AccountEmail {
  subject: string;
  text: string;
}

const SIGNATURE = '— factura-cr';

export function confirmationEmail(name: string, link: string): AccountEmail {
  return {
    subject: 'Confirme su correo / Confirm your email',
    text: [
      `Hola ${name}:`,
      '',
      'Para activar su cuenta en factura-cr, confirme su correo abriendo este enlace:',
      link,
      '',
      'Si usted no creó esta cuenta, ignore este mensaje.',
      '',
      '---',
      '',
      `Hello ${name},`,
      '',
      'To activate your factura-cr account, confirm your email address by opening this link:',
      link,
      '',
      'If you did not create this account, ignore this message.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

export function passwordResetEmail(name: string, link: string): AccountEmail {
  return {
    subject: 'Restablecer su contraseña / Reset your password',
    text: [
      `Hola ${name}:`,
      '',
      'Para elegir una contraseña nueva, abra este enlace (vale por 1 hora y una sola vez):',
      link,
      '',
      'Si usted no lo pidió, ignore este mensaje: su contraseña no cambia.',
      '',
      '---',
      '',
      `Hello ${name},`,
      '',
      'To choose a new password, open this link (valid for 1 hour, once):',
      link,
      '',
      'If you did not ask for it, ignore this message: your password does not change.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

export function invitationEmail(companyName: string, role: Role, link: string): AccountEmail {
  const names = ROLE_NAMES[role];
  return {
    subject: `Invitación a ${companyName} / Invitation to ${companyName}`,
    text: [
      `Le invitaron a facturar con ${companyName} en factura-cr, con el rol ${names.es}.`,
      'Para aceptar, abra este enlace (vale por 7 días):',
      link,
      '',
      '---',
      '',
      `You have been invited to invoice for ${companyName} on factura-cr, as ${names.en}.`,
      'To accept, open this link (valid for 7 days):',
      link,
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
