// Signature checks of a received document, with the project's XAdES verifier (hacienda/verify.ts,
// behind the DOM-free fast path of hacienda/fast-verify.ts, which hands over every document it
// does not accept, so verdicts and error texts are xadesjs's):
// a document whose own digest no longer matches was changed after signing; any other failure is a
// plain invalid signature; a valid signature by someone other than the emisor is refused too.
// Hacienda reports these as free text, not as table rows (rejection texts seen in Hacienda's answers, royrojas #6 sample).
import { certificateBelongsTo } from '../../hacienda/signing-key.ts';
import { verifySignature } from '../../hacienda/fast-verify.ts';
import type { XadesVerification } from '../../hacienda/verify.ts';

export const SIGNATURE_TEXTS = {
  invalid: 'La firma del comprobante electrónico no es válida',
  modified:
    'La firma del comprobante electrónico no es válida (El XML fue modificado luego de haber sido firmado).',
  notEmisor: 'El contribuyente que firma la factura electronica no es el emisor',
} as const;

// xmldsigjs reports a digest mismatch of the whole-document reference (URI="") like this.
const DOCUMENT_DIGEST_MISMATCH = /Invalid digest for uri ''/;

export async function checkSignature(
  xml: string,
  emisor: { tipo: string | null; numero: string | null },
): Promise<string[]> {
  return (await inspectSignature(xml, emisor)).texts;
}

/** The free-text reasons (none when valid and signed by the emisor) and the verifier's result. */
export async function inspectSignature(
  xml: string,
  emisor: { tipo: string | null; numero: string | null },
): Promise<{ texts: string[]; verification: XadesVerification }> {
  const v = await verifySignature(xml);
  const texts = (): string[] => {
    if (!v.valid) {
      return [
        v.errors.some((e) => DOCUMENT_DIGEST_MISMATCH.test(e))
          ? SIGNATURE_TEXTS.modified
          : SIGNATURE_TEXTS.invalid,
      ];
    }
    if (!v.signingCertificate || !emisor.numero) return [SIGNATURE_TEXTS.notEmisor];
    const belongs = certificateBelongsTo(v.signingCertificate, {
      idType: emisor.tipo,
      idNumber: emisor.numero,
    });
    return belongs ? [] : [SIGNATURE_TEXTS.notEmisor];
  };
  return { texts: texts(), verification: v };
}
