// Files an operator hands the standalone simulator: Hacienda's published CABYS catalogue
// (SIMULATOR_CABYS_FILE) and the certificates of further CAs to trust (SIMULATOR_TRUSTED_CA).
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Every CABYS code in a text export of Hacienda's catalogue (CSV, TSV or one code per line, as
 * saved from the published spreadsheet): each run of exactly 13 digits is a code.
 */
export function readCabysCatalogue(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  const codes = new Set(text.match(/(?<!\d)\d{13}(?!\d)/g) ?? []);
  if (codes.size === 0) throw new Error(`no 13-digit CABYS code found in ${path}`);
  return codes;
}

/** The certificates of one or more PEM files (several certificates per file are allowed). */
export function readPemCertificates(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`no PEM certificate in ${path}`);
  for (const pem of blocks) new X509Certificate(pem); // throws on a malformed certificate
  return blocks;
}
