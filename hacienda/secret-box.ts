// Encryption at rest for company secrets (the signing key and certificates from the .p12, the
// Hacienda API password): AES-256-GCM under a 32-byte key from the environment.
//
// Sealed format (version 1), stored as bytea:
//   [0x01 version][12-byte random IV][16-byte GCM tag][ciphertext]
// The version byte is also authenticated (as additional data), so a future format can coexist
// and an old box cannot be replayed under a new version. Signing material is serialised as a
// small length-prefixed binary record before sealing (see encodeSigningMaterial).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SigningMaterial } from './signing-key.ts';

const VERSION_1 = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** A sealed box that cannot be opened: wrong key, tampered bytes or unknown format. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) {
    throw new SecretBoxError(`The secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  }
}

/** Encrypts `plaintext` under `key` with a fresh random IV. */
export function seal(key: Buffer, plaintext: Buffer): Buffer {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const header = Buffer.from([VERSION_1]);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(header);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, iv, cipher.getAuthTag(), body]);
}

/** Decrypts a box made by `seal`; throws SecretBoxError when it was altered or the key is wrong. */
export function open(key: Buffer, sealed: Buffer): Buffer {
  checkKey(key);
  if (sealed.length < HEADER_BYTES) throw new SecretBoxError('Sealed data is truncated');
  const version = sealed[0];
  if (version !== VERSION_1) {
    throw new SecretBoxError(`Unknown sealed-data version ${String(version)}`);
  }
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, HEADER_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]);
  } catch {
    throw new SecretBoxError('Sealed data failed authentication (wrong key or altered data)');
  }
}

/** Seals a signing key and its certificate chain for company_credentials.signing_key_enc. */
export function sealSigningMaterial(key: Buffer, material: SigningMaterial): Buffer {
  return seal(key, encodeSigningMaterial(material));
}

/** Opens what sealSigningMaterial produced. */
export function openSigningMaterial(key: Buffer, sealed: Buffer): SigningMaterial {
  return decodeSigningMaterial(open(key, sealed));
}

// Record: [u32 key length][key][u32 certificate count]([u32 length][certificate])*
function encodeSigningMaterial(material: SigningMaterial): Buffer {
  const parts: Buffer[] = [u32(material.privateKeyPkcs8.length), material.privateKeyPkcs8];
  parts.push(u32(material.certificateChain.length));
  for (const cert of material.certificateChain) parts.push(u32(cert.length), cert);
  return Buffer.concat(parts);
}

function decodeSigningMaterial(data: Buffer): SigningMaterial {
  let offset = 0;
  const take = (length: number): Buffer => {
    if (offset + length > data.length) throw new SecretBoxError('Sealed signing key is malformed');
    const out = Buffer.from(data.subarray(offset, offset + length));
    offset += length;
    return out;
  };
  const readU32 = (): number => take(4).readUInt32BE(0);
  const privateKeyPkcs8 = take(readU32());
  const count = readU32();
  const certificateChain: Buffer[] = [];
  for (let i = 0; i < count; i++) certificateChain.push(take(readU32()));
  if (offset !== data.length) throw new SecretBoxError('Sealed signing key is malformed');
  return { privateKeyPkcs8, certificateChain };
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}
