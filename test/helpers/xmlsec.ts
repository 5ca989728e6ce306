// Independent verification of our XAdES signatures with xmlsec1 (libxmlsec1 + OpenSSL), so the
// tests do not only check xadesjs against itself.
//
// Command line used for each document:
//   xmlsec1 --verify --enabled-key-data x509 --trusted-pem <ca.pem>
//     --id-attr:Id http://uri.etsi.org/01903/v1.3.2#:SignedProperties
//     --id-attr:Id http://www.w3.org/2000/09/xmldsig#:KeyInfo
//     --enabled-reference-uris empty,same-doc  <file>...
// --id-attr declares the XAdES/KeyInfo Id attributes as XML IDs (there is no DTD), so the
// "#SignedProperties-…" and "#KeyInfoId-…" references resolve. --enabled-key-data x509 makes
// xmlsec1 take the key only from the X509Certificate, validated up to the trusted CA; otherwise
// it would fall back to the RSAKeyValue and accept an untrusted certificate.
//
// xmlsec1 verifies several files in one run but stops at the first failure, so verifyManyWithXmlsec
// runs batches and restarts after a failed file: one process per ~100 documents instead of one
// each (~0.7 ms per document instead of ~19 ms).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testCaCertificate } from '../../hacienda/test-certificates.ts';

import { findExecutable } from './executables.ts';

/** xmlsec1 as installed on this machine (the bare name, so a missing one fails with ENOENT). */
export const XMLSEC1 = findExecutable(['xmlsec1']) ?? 'xmlsec1';

export interface XmlsecResult {
  valid: boolean;
  /** What xmlsec1 printed for this document (stdout and stderr). */
  output: string;
}

export interface XmlsecOptions {
  /** PEM of the CA to trust; defaults to this process's sandbox test CA. */
  trustedPem?: string;
  /** Check certificate validity at this time instead of now. */
  verificationTime?: Date;
}

export async function verifyWithXmlsec(
  xml: string | Buffer,
  options: XmlsecOptions = {},
): Promise<XmlsecResult> {
  const [result] = await verifyManyWithXmlsec([xml], options);
  return result!;
}

const BATCH = 100;

export async function verifyManyWithXmlsec(
  documents: (string | Buffer)[],
  options: XmlsecOptions = {},
): Promise<XmlsecResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'xmlsec-'));
  try {
    const caPath = join(dir, 'ca.pem');
    await writeFile(caPath, options.trustedPem ?? (await testCaCertificate()).pem);
    const files = await Promise.all(
      documents.map(async (doc, i) => {
        const path = join(dir, `doc-${i}.xml`);
        await writeFile(path, doc);
        return path;
      }),
    );
    const args = [
      '--verify',
      '--enabled-key-data',
      'x509',
      '--trusted-pem',
      caPath,
      '--id-attr:Id',
      'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
      '--id-attr:Id',
      'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
      '--enabled-reference-uris',
      'empty,same-doc',
    ];
    if (options.verificationTime) {
      args.push('--verification-gmt-time', gmt(options.verificationTime));
    }
    const results: XmlsecResult[] = [];
    let next = 0;
    while (next < files.length) {
      const batch = files.slice(next, next + BATCH);
      const { code, output } = await run(XMLSEC1, [...args, ...batch]);
      // Each verified file prints its own "OK"/"FAIL" block; a failure ends the run with
      // `Error: failed to verify file "<path>"`.
      const failed = /Error: failed to verify file "([^"]+)"/.exec(output)?.[1];
      const failedIndex = failed ? batch.indexOf(failed) : -1;
      if (code === 0 && failedIndex < 0) {
        for (const block of splitBlocks(output, batch.length)) results.push({ valid: true, output: block });
        next += batch.length;
        continue;
      }
      const stop = failedIndex < 0 ? 0 : failedIndex;
      const blocks = splitBlocks(output, stop + 1);
      for (let i = 0; i < stop; i++) results.push({ valid: true, output: blocks[i] ?? '' });
      results.push({ valid: false, output: blocks.slice(stop).join('\n') || output });
      next += stop + 1;
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Splits xmlsec1's output into per-file blocks, each ending with its "Manifests References" line. */
function splitBlocks(output: string, count: number): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  for (const line of output.split('\n')) {
    current.push(line);
    if (line.startsWith('Manifests References')) {
      blocks.push(current.join('\n'));
      current = [];
    }
  }
  if (current.join('').trim()) blocks.push(current.join('\n'));
  while (blocks.length < count) blocks.push('');
  return blocks;
}

function run(cmd: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

function gmt(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
