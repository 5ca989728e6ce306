// Sealing test secrets with the test configuration's key.
import { seal } from '../../hacienda/secret-box.ts';
import { TEST_SECRETS_KEY } from './app.ts';

export function sealSecret(text: string): Buffer {
  return seal(Buffer.from(TEST_SECRETS_KEY, 'base64'), Buffer.from(text, 'utf8'));
}
