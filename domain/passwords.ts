// Rules of a person's password: 10 to 200 characters, and not the email address itself.
import type { FieldError } from './errors.ts';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export function passwordProblems(password: string, email: string, path = '/password'): FieldError[] {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN)
    return [{ path, code: 'too_short', message: `must be at least ${PASSWORD_MIN} characters` }];
  if (chars > PASSWORD_MAX)
    return [{ path, code: 'too_long', message: `must be at most ${PASSWORD_MAX} characters` }];
  if (password.trim().toLowerCase() === email.trim().toLowerCase())
    return [{ path, code: 'same_as_email', message: 'must not be the email address' }];
  return [];
}

/** Email addresses as compared: trimmed, lower-case. */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}
