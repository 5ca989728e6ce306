// A supplier's signed Factura Electrónica addressed to a company, for the received-documents
// tests: built by the project's own builder (hacienda/xml) with totals from domain/totals, signed
// by the real signer under the supplier's own sandbox certificate (or another's, to test refusals),
// or by xadesjs in the layout other signers write (xadesjsSupplierInvoice).
import { randomBytes, webcrypto } from 'node:crypto';
import { buildClave, buildConsecutivo } from '../../domain/clave.ts';
import { computeDocumentTotals } from '../../domain/totals.ts';
import type { SigningMaterial } from '../../hacienda/signing-key.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';
import {
  POLICY_DIGEST_SHA256,
  POLICY_URL,
  parseXmlStrict,
  serializeXml,
  xades,
} from '../../hacienda/xades-env.ts';
import { buildFacturaXml } from '../../hacienda/xml/factura.ts';
import type { DocumentLine, FacturaDocument } from '../../hacienda/xml/types.ts';
import { signerFor } from './hacienda-fixtures.ts';

export interface Party {
  idType: string;
  idNumber: string;
  name: string;
}

export const SUPPLIER: Party = { idType: '01', idNumber: '109870654', name: 'Proveedora Ejemplo Rojas' };

/** Two monitors at 100 000 + 13 % IVA and an exempt installation: TotalImpuesto 26 000, total 236 000. */
export const SUPPLIER_LINES: DocumentLine[] = [
  {
    cabys: '4522003990000',
    description: 'Monitor de 27 pulgadas',
    quantity: '2',
    unitPrice: '100000',
    unit: 'Unid',
    ivaRateCode: '08',
  },
  {
    cabys: '9231000000200',
    description: 'Instalación exenta',
    quantity: '1',
    unitPrice: '10000',
    unit: 'Sp',
    ivaRateCode: '10',
  },
];

export interface SupplierInvoice {
  clave: string;
  issuedAt: Date;
  xml: string;
}

/** The supplier's factura number `number` to `receptor`, signed by `signedBy` (the supplier by default). */
export async function supplierInvoice(
  number: number,
  receptor: Party,
  signedBy: Party = SUPPLIER,
): Promise<SupplierInvoice> {
  const unsigned = unsignedSupplierInvoice(number, receptor);
  const xml = await (await signerFor(signedBy)).sign(unsigned.xml);
  return { ...unsigned, xml };
}

/** The SignaturePolicyIdentifier an xadesjs signer writes: Identifier, digest algorithm, digest. */
export interface PolicyShape {
  identifier: string;
  hash: 'SHA-1' | 'SHA-256';
  digest: string;
}

/** Hacienda's v4.4 policy, as a signer should name it. */
export const POLICY_V44: PolicyShape = {
  identifier: POLICY_URL,
  hash: 'SHA-256',
  digest: POLICY_DIGEST_SHA256,
};
/** The v4.1-4.3 policy (DGT-R-48-2016) with its SHA-1 digest, as older signers still write it. */
export const POLICY_V41: PolicyShape = {
  identifier:
    'https://tribunet.hacienda.go.cr/docs/esquemas/2016/v4.1/Resolucion_Comprobantes_Electronicos_DGT-R-48-2016.pdf',
  hash: 'SHA-1',
  digest: 'Ohixl6upD6av8N7pEvDABhEL6hM=',
};

const materials = new Map<string, Promise<SigningMaterial>>();

function materialFor(who: Party): Promise<SigningMaterial> {
  let m = materials.get(who.idNumber);
  if (!m) {
    m = createTestCertificate(who).then((c) => c.material);
    materials.set(who.idNumber, m);
  }
  return m;
}

/**
 * The supplier's factura signed by xadesjs the way a signer that names its ds:Signature writes it
 * (as suppliers' signers built on xadesjs do): `Id="xmldsig-<hex>"` on the Signature while
 * QualifyingProperties keep `Target="#id-<hex>"`, the Id xadesjs generated before the signer's
 * replaced it; two references (the document with the enveloped and inclusive C14N transforms, and
 * the SignedProperties, `Id="xades-id-<hex>"`); KeyInfo with the certificate only; SigningTime in
 * UTC; the policy given (`null`: none, a XAdES-BES signature) and no SignerRole unless one is
 * given. The document is re-serialised.
 */
export async function xadesjsSupplierInvoice(
  number: number,
  receptor: Party,
  policy: PolicyShape | null = POLICY_V44,
  /** SignerRole/ClaimedRoles (the SDK writes none; Hacienda's simulator wants "Emisor"). */
  claimedRole: string | null = null,
): Promise<SupplierInvoice> {
  const unsigned = unsignedSupplierInvoice(number, receptor);
  const material = await materialFor(SUPPLIER);
  const x = xades();
  const doc = parseXmlStrict(unsigned.xml);
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    material.privateKeyPkcs8,
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const certificate = material.certificateChain[0]!.toString('base64');
  const hex = () => randomBytes(8).toString('hex');
  const signed = await new x.SignedXml().Sign({ name: 'RSASSA-PKCS1-v1_5' }, key as never, doc as never, {
    id: `xmldsig-${hex()}`,
    references: [{ id: `r-${hex()}`, uri: '', hash: 'SHA-256', transforms: ['enveloped', 'c14n'] }],
    signingCertificate: certificate,
    signingTime: { value: new Date() },
    x509: [certificate],
    ...(claimedRole ? { signerRole: { claimed: [claimedRole] } } : {}),
    ...(policy
      ? {
          policy: {
            identifier: { qualifier: 'OIDAsURN', value: policy.identifier },
            hash: policy.hash,
            digestValue: policy.digest,
          },
        }
      : {}),
  });
  doc.documentElement!.appendChild(signed.GetXml() as never);
  return { ...unsigned, xml: serializeXml(doc) };
}

function unsignedSupplierInvoice(number: number, receptor: Party): SupplierInvoice {
  const issuedAt = new Date(Date.now() - 60_000);
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number });
  const clave = buildClave({
    date: issuedAt,
    emisorId: SUPPLIER.idNumber,
    consecutivo,
    situacion: '1',
    securityCode: String(40_000_000 + number),
  });
  const doc: FacturaDocument = {
    clave,
    consecutivo,
    issuedAt,
    proveedorSistemas: SUPPLIER.idNumber,
    activityCode: '523101',
    emisor: {
      name: SUPPLIER.name,
      idType: SUPPLIER.idType as '01',
      idNumber: SUPPLIER.idNumber,
      ubicacion: { provincia: '1', canton: '01', distrito: '02', otrasSenas: 'Calle 5, avenida 9' },
      emails: ['ventas@proveedora.example'],
    },
    receptor: { name: receptor.name, idType: receptor.idType as '02', idNumber: receptor.idNumber },
    condicionVenta: '02',
    plazoCredito: 30,
    mediosPago: [{ type: '04' }],
    lines: SUPPLIER_LINES,
    totals: computeDocumentTotals(SUPPLIER_LINES, { currency: 'CRC', exchangeRate: '1' }),
  };
  return { clave, issuedAt, xml: buildFacturaXml(doc) };
}
