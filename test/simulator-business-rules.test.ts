// The simulator enforces Hacienda's business rules, each behind its own knob. One case per rule:
// a document built by the builders (then edited before signing where the builders refuse to write
// the mistake), schema-valid and signed correctly, that breaks exactly that rule. The simulator
// rejects it with the rule's code (or, for signature requirements, its free text), the service's
// rejection catalogue explains every reason, and with that rule's knob off the same document is
// accepted, as a lenient Hacienda would. A compliant document passes every rule.
import 'reflect-metadata';
import { createHash, createPrivateKey, sign as rsaSign, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unknownLocationPart, TERRITORIAL_DIVISION_SIZE } from '../domain/territorial-division.ts';
import { canonicalizeDocument } from '../hacienda/canonical-document.ts';
import { explainMensajeHacienda } from '../hacienda/rejection-reasons.ts';
import { CATALOGUE } from '../hacienda/rejection-catalogue.ts';
import { createSigner } from '../hacienda/signer.ts';
import type { SigningMaterial } from '../hacienda/signing-key.ts';
import { certificateInfo, formatCertificateSerialNumber } from '../hacienda/signing-key.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { POLICY_URL } from '../hacienda/xades-env.ts';
import {
  apexNamespaces,
  keyInfo,
  signatureBlock,
  signedInfo,
  signedProperties,
} from '../hacienda/xades-template.ts';
import type { SignatureFields } from '../hacienda/xades-template.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import type { FacturaDocument } from '../hacienda/xml/types.ts';
import { buildSimulator } from '../simulator/app.ts';
import type { SimulatorApp } from '../simulator/app.ts';
import { RULE_CODES, SIGNATURE_RULE_TEXTS } from '../simulator/checks/rule-texts.ts';
import { loadSimulatorConfig } from '../simulator/config.ts';
import type { SimulatorKnobs } from '../simulator/knobs.ts';
import { testDocument, testFactura, TEST_EMISOR, TEST_LINES } from './helpers/documents.ts';
import type { TestDocumentOptions } from './helpers/documents.ts';
import { EMISOR, signerFor, submission, XSD_DIR } from './helpers/hacienda-fixtures.ts';

type Knob = keyof SimulatorKnobs & `check${string}`;

interface Built {
  xml: string;
  clave: string;
  issuedAt: Date;
}

interface Case {
  name: string;
  knob: Knob;
  /** A DetalleMensaje row code, or a free-text signature reason. */
  expect: { code: number; message?: RegExp } | { freeText: string };
  /** The catalogue entry the service uses to explain it. */
  kind: string;
  /** Other knobs this case needs off (a rule that cannot be broken alone). */
  alsoOff?: Knob[];
  build: (n: number) => Promise<Built>;
}

let app: SimulatorApp;
let token: string;
let numbers = 1000;

beforeAll(async () => {
  // The official CABYS catalogue shipped in catalogues/ is the simulator's default.
  app = await buildSimulator({ processingDelayMs: 0, schemaDir: XSD_DIR });
  const res = await app.inject({
    method: 'POST',
    url: '/auth/realms/rut-stag/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=password&client_id=api-stag&username=emisor&password=pw',
  });
  token = res.json<{ access_token: string }>().access_token;
});
afterAll(async () => {
  await app.close();
});

const recent = () => new Date(Date.now() - 60_000);

/** A factura by the builder, optionally changed as text before signing. */
function factura(
  n: number,
  options: Omit<TestDocumentOptions, 'number'> = {},
  patch: (d: FacturaDocument) => FacturaDocument = (d) => d,
  edit?: (xml: string) => string,
): Built {
  const doc = patch(testFactura({ issuedAt: recent(), ...options, number: n }));
  const xml = buildComprobanteXml('FacturaElectronica', doc);
  const edited = edit ? edit(xml) : xml;
  if (edit && edited === xml) throw new Error('the edit changed nothing');
  return { xml: edited, clave: doc.clave, issuedAt: doc.issuedAt };
}

const signed = async (b: Built, opts?: { signingTime?: Date }): Promise<Built> => ({
  ...b,
  xml: await (await signerFor(EMISOR)).sign(b.xml, opts),
});

async function submit(b: Built) {
  const post = await app.inject({
    method: 'POST',
    url: '/recepcion-sandbox/v1/recepcion',
    headers: { authorization: `Bearer ${token}` },
    payload: submission(b, b.xml),
  });
  expect(post.statusCode).toBe(202);
  await app.simulator.idle();
  const view = app.simulator.document(b.clave)!;
  const status = await app.inject({
    url: `/recepcion-sandbox/v1/recepcion/${b.clave}`,
    headers: { authorization: `Bearer ${token}` },
  });
  const xml = Buffer.from(status.json<Record<string, string>>()['respuesta-xml'] ?? '', 'base64').toString(
    'utf8',
  );
  return { view, explained: explainMensajeHacienda(xml) };
}

/** Signs with the template, changing SignedProperties text (policy, role) before digesting it. */
async function signEdited(
  b: Built,
  material: SigningMaterial,
  change: (s: string) => string,
): Promise<Built> {
  const doc = canonicalizeDocument(b.xml)!;
  const der = material.certificateChain[0]!;
  const info = certificateInfo(der);
  const jwk = new X509Certificate(der).publicKey.export({ format: 'jwk' });
  const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('base64');
  const signedAt = new Date();
  const cr = new Date(signedAt.getTime() - 6 * 3600_000).toISOString().slice(0, 19);
  const f: SignatureFields = {
    signatureUuid: '5ca1ab1e-0000-4000-8000-000000000001',
    referenceUuid: '5ca1ab1e-0000-4000-8000-000000000002',
    documentDigest: sha(doc.canonical),
    keyInfoDigest: '',
    signedPropertiesDigest: '',
    signatureValue: '',
    certificate: der.toString('base64'),
    modulus: Buffer.from(jwk.n!, 'base64url').toString('base64'),
    exponent: Buffer.from(jwk.e!, 'base64url').toString('base64'),
    signingTime: `${cr}-06:00`,
    certificateDigest: sha(der),
    issuerName: info.issuer,
    serialNumber: info.serialNumberDecimal,
  };
  const dsApex = apexNamespaces(doc.namespaces, false);
  f.keyInfoDigest = sha(keyInfo(f, dsApex));
  f.signedPropertiesDigest = sha(change(signedProperties(f, apexNamespaces(doc.namespaces, true))));
  const key = createPrivateKey({ key: material.privateKeyPkcs8, format: 'der', type: 'pkcs8' });
  f.signatureValue = rsaSign('sha256', Buffer.from(signedInfo(f, dsApex)), key).toString('base64');
  const block = change(signatureBlock(f));
  return { ...b, xml: b.xml.slice(0, doc.rootCloseStart) + block + b.xml.slice(doc.rootCloseStart) };
}

/** A certificate for the emisor from a CA the simulator does not trust. */
async function untrustedMaterial(): Promise<SigningMaterial> {
  x509.cryptoProvider.set(webcrypto as never);
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  };
  const gen = async () =>
    (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const [caKeys, keys] = await Promise.all([gen(), gen()]);
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=CA AJENA DE PRUEBAS, C=CR',
    notBefore: new Date(now - 86400_000),
    notAfter: new Date(now + 86400_000 * 365),
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `CN=${EMISOR.name}, 2.5.4.5=${formatCertificateSerialNumber(EMISOR.idType, EMISOR.idNumber)}, C=CR`,
    issuer: ca.subjectName,
    notBefore: new Date(now - 86400_000),
    notAfter: new Date(now + 86400_000 * 365),
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
  });
  return {
    privateKeyPkcs8: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    certificateChain: [Buffer.from(leaf.rawData), Buffer.from(ca.rawData)],
  };
}

const one = (text: string, from: string, to: string) => text.replace(from, to);
const exonerated = {
  ...TEST_LINES[0]!,
  exoneration: {
    docType: '01' as const,
    number: 'AL-00123-2026',
    institution: '01' as const,
    issuedAt: new Date('2026-01-15T15:00:00Z'),
    rate: '13',
  },
};

const CASES: Case[] = [
  {
    name: 'a CABYS code that is not 13 digits',
    knob: 'checkCabys',
    expect: { code: RULE_CODES.cabys, message: /13 dígitos/ },
    kind: 'cabys',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => d,
          (x) => one(x, '<CodigoCABYS>8314100000100<', '<CodigoCABYS>83141000001A0<'),
        ),
      ),
  },
  {
    name: "a CABYS code missing from Hacienda's catalogue",
    knob: 'checkCabys',
    expect: { code: RULE_CODES.cabys, message: /no existe en el catálogo/ },
    kind: 'cabys',
    build: async (n) => signed(factura(n, { lines: [{ ...TEST_LINES[0]!, cabys: '9999999999999' }] })),
  },
  {
    name: 'the CABYS code 0000000000000 (13 digits, in no catalogue)',
    knob: 'checkCabys',
    expect: { code: RULE_CODES.cabys, message: /'0000000000000' de la línea 1 no existe en el catálogo/ },
    kind: 'cabys',
    build: async (n) => signed(factura(n, { lines: [{ ...TEST_LINES[0]!, cabys: '0000000000000' }] })),
  },
  {
    name: 'an activity code that is not 6 digits',
    knob: 'checkActivityCode',
    expect: { code: RULE_CODES.activityCode },
    kind: 'actividad-economica',
    build: async (n) => signed(factura(n, {}, (d) => ({ ...d, activityCode: '69200A' }))),
  },
  {
    name: 'an emisor location outside the territorial division',
    knob: 'checkLocation',
    expect: { code: RULE_CODES.emisorLocation },
    kind: 'ubicacion',
    build: async (n) =>
      signed(
        factura(n, { emisor: { ...TEST_EMISOR, ubicacion: { ...TEST_EMISOR.ubicacion, canton: '99' } } }),
      ),
  },
  {
    name: 'a receptor district that does not exist',
    knob: 'checkLocation',
    expect: { code: RULE_CODES.receptorLocation },
    kind: 'receptor-ubicacion',
    build: async (n) =>
      signed(
        factura(n, {}, (d) => ({
          ...d,
          receptor: {
            ...d.receptor,
            ubicacion: { provincia: '1', canton: '01', distrito: '12', otrasSenas: 'Frente a la plaza' },
          },
        })),
      ),
  },
  {
    name: 'a tariff code whose rate is not the one written',
    knob: 'checkTariffRate',
    expect: { code: RULE_CODES.tariffRate },
    kind: 'tarifa-iva',
    build: async (n) =>
      signed(
        factura(
          n,
          { lines: [TEST_LINES[0]!] },
          (d) => d,
          (x) =>
            x.replaceAll('<CodigoTarifaIVA>08</CodigoTarifaIVA>', '<CodigoTarifaIVA>02</CodigoTarifaIVA>'),
        ),
      ),
  },
  {
    name: 'a transitional tariff (notes only) in a factura',
    knob: 'checkTariffDocumentType',
    expect: { code: RULE_CODES.tariffDocumentType },
    kind: 'tarifa-tipo-documento',
    build: async (n) =>
      signed(
        factura(
          n,
          { lines: [{ ...TEST_LINES[0]!, ivaRateCode: '04' }] },
          (d) => d,
          (x) =>
            x.replaceAll('<CodigoTarifaIVA>04</CodigoTarifaIVA>', '<CodigoTarifaIVA>06</CodigoTarifaIVA>'),
        ),
      ),
  },
  {
    name: 'a cédula física with a leading zero',
    knob: 'checkIdentification',
    expect: { code: RULE_CODES.identification },
    kind: 'identificacion',
    build: async (n) =>
      signed(factura(n, {}, (d) => ({ ...d, receptor: { ...d.receptor, idNumber: '012340567' } }))),
  },
  {
    name: 'a CRC document with an exchange rate other than 1',
    knob: 'checkExchangeRate',
    expect: { code: RULE_CODES.exchangeRate },
    kind: 'tipo-cambio',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => d,
          (x) => one(x, '<TipoCambio>1.00000<', '<TipoCambio>530.00000<'),
        ),
      ),
  },
  {
    name: 'a PlazoCredito of no days (Hacienda -58: not its structure)',
    knob: 'checkCreditTerm',
    expect: { code: -58, message: /PlazoCredito/ },
    kind: 'plazo-credito',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => ({ ...d, condicionVenta: '02', plazoCredito: 30 }),
          (x) => one(x, '<PlazoCredito>30<', '<PlazoCredito>0<'),
        ),
      ),
  },
  {
    name: 'a credit sale without PlazoCredito',
    knob: 'checkCreditTerm',
    expect: { code: RULE_CODES.creditTerm },
    kind: 'plazo-credito-falta',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => ({ ...d, condicionVenta: '02', plazoCredito: 30 }),
          (x) => one(x, '<PlazoCredito>30</PlazoCredito>\n', ''),
        ),
      ),
  },
  {
    name: "a factura de exportación without its receptor's foreign address",
    knob: 'checkExportRules',
    expect: { code: RULE_CODES.exportacion },
    kind: 'exportacion',
    build: async (n) => {
      const lines = TEST_LINES.map((l) => ({ ...l, ivaRateCode: '01' as const }));
      const doc = testDocument({ issuedAt: recent(), number: n, docType: '09', lines });
      const xml = buildComprobanteXml('FacturaElectronicaExportacion', {
        ...doc,
        activityCode: doc.activityCode ?? '692000',
        receptorActivityCode: undefined,
        receptor: { ...doc.receptor!, idType: '05', idNumber: 'US12345' },
      });
      return signed({ xml, clave: doc.clave, issuedAt: doc.issuedAt });
    },
  },
  {
    name: 'payment method 99 without MedioPagoOtros',
    knob: 'checkOtherTexts',
    expect: { code: RULE_CODES.otherTexts },
    kind: 'otros-99',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => d,
          (x) => one(x, '<TipoMedioPago>04<', '<TipoMedioPago>99<'),
        ),
      ),
  },
  {
    name: 'TotalMedioPago amounts that do not add up to TotalComprobante',
    knob: 'checkPaymentMethods',
    expect: { code: RULE_CODES.totals, message: /TotalMedioPago/ },
    kind: 'medio-pago',
    build: async (n) =>
      signed(
        factura(n, {}, (d) => ({
          ...d,
          mediosPago: [
            { type: '01', total: '1000' },
            { type: '04', total: '1' },
          ],
        })),
      ),
  },
  {
    name: 'a tax of the lines missing from TotalDesgloseImpuesto',
    knob: 'checkTaxBreakdown',
    expect: { code: RULE_CODES.totals, message: /falta el impuesto 01 tarifa 08/ },
    kind: 'desglose-impuestos',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => d,
          (x) => x.replace(/<TotalDesgloseImpuesto>\n(?:.*\n){3}<\/TotalDesgloseImpuesto>\n/, ''),
        ),
      ),
  },
  {
    name: 'an exoneration issued after the document',
    knob: 'checkExonerations',
    expect: { code: RULE_CODES.exoneration },
    kind: 'exoneracion',
    build: async (n) =>
      signed(
        factura(
          n,
          { lines: [exonerated] },
          (d) => d,
          (x) => x.replace(/<FechaEmisionEX>2026-01-15/, '<FechaEmisionEX>2027-01-15'),
        ),
      ),
  },
  {
    name: 'a charge collected for a third party without the third party',
    knob: 'checkOtherCharges',
    expect: { code: RULE_CODES.otherCharges },
    kind: 'otros-cargos',
    build: async (n) =>
      signed(
        factura(n, {
          totals: { otherCharges: [{ code: '04', detail: 'Cobro por cuenta de tercero', amount: '1500' }] },
        }),
      ),
  },
  {
    name: 'line numbers out of sequence',
    knob: 'checkLineNumbers',
    expect: { code: RULE_CODES.lineNumbers },
    kind: 'numero-linea',
    build: async (n) =>
      signed(
        factura(
          n,
          {},
          (d) => d,
          (x) => one(x, '<NumeroLinea>2<', '<NumeroLinea>3<'),
        ),
      ),
  },
  {
    name: 'a reference to a factura whose number is not a clave',
    knob: 'checkReferences',
    expect: { code: RULE_CODES.references },
    kind: 'referencia',
    build: async (n) =>
      signed(
        factura(n, {}, (d) => ({
          ...d,
          referencias: [
            {
              docType: '01',
              number: '0000123',
              issuedAt: new Date(Date.now() - 86400_000),
              code: '04',
              reason: 'Complemento',
            },
          ],
        })),
      ),
  },
  {
    name: 'a FechaEmision ahead of the official clock',
    knob: 'checkIssueDate',
    expect: { code: RULE_CODES.issueDateFuture },
    kind: 'hora-oficial',
    // Signed before it is dated: SigningTime's own rule would object first.
    alsoOff: ['checkSigningTime'],
    build: async (n) => signed(factura(n, { issuedAt: new Date(Date.now() + 3600_000) })),
  },
  {
    name: 'a signature under another policy',
    knob: 'checkSignaturePolicy',
    expect: { freeText: SIGNATURE_RULE_TEXTS.policy },
    kind: 'signature-policy',
    build: async (n) =>
      signEdited(factura(n), (await createTestCertificate(EMISOR)).material, (s) =>
        s.replaceAll(
          POLICY_URL,
          'https://www.hacienda.go.cr/ATV/ComprobanteElectronico/docs/esquemas/2016/v4.1/Resolucion_Comprobantes_Electronicos_DGT-R-48-2016.pdf',
        ),
      ),
  },
  {
    name: 'a signature without SignaturePolicyIdentifier (Hacienda: no Policy Id)',
    knob: 'checkSignaturePolicy',
    expect: { freeText: SIGNATURE_RULE_TEXTS.policyMissing },
    kind: 'signature-policy-id',
    build: async (n) =>
      signEdited(factura(n), (await createTestCertificate(EMISOR)).material, (s) =>
        s.replace(/<xades:SignaturePolicyIdentifier>[\s\S]*<\/xades:SignaturePolicyIdentifier>/, ''),
      ),
  },
  {
    name: 'a signer role other than Emisor',
    knob: 'checkSignerRole',
    expect: { freeText: SIGNATURE_RULE_TEXTS.role },
    kind: 'signer-role',
    build: async (n) =>
      signEdited(factura(n), (await createTestCertificate(EMISOR)).material, (s) =>
        s.replace('<xades:ClaimedRole>Emisor<', '<xades:ClaimedRole>ObligadoTributario<'),
      ),
  },
  {
    name: 'a SigningTime ahead of the official clock',
    knob: 'checkSigningTime',
    expect: { freeText: SIGNATURE_RULE_TEXTS.signingTimeFuture },
    kind: 'signing-time',
    build: async (n) => signed(factura(n), { signingTime: new Date(Date.now() + 3600_000) }),
  },
  {
    name: 'a certificate from a CA Hacienda does not recognise',
    knob: 'checkCertificate',
    expect: { freeText: SIGNATURE_RULE_TEXTS.certificateUntrusted },
    kind: 'certificate-untrusted',
    build: async (n) => {
      const signer = await createSigner(await untrustedMaterial());
      const b = factura(n);
      return { ...b, xml: await signer.sign(b.xml) };
    },
  },
  {
    name: 'a certificate that had expired when it signed',
    knob: 'checkCertificate',
    expect: { freeText: SIGNATURE_RULE_TEXTS.certificateNotCurrent },
    kind: 'certificate-not-current',
    build: async (n) => {
      const expired = await createTestCertificate({
        ...EMISOR,
        notBefore: new Date(Date.now() - 800 * 86400_000),
        notAfter: new Date(Date.now() - 86400_000),
      });
      const b = factura(n);
      return { ...b, xml: await (await createSigner(expired.material)).sign(b.xml) };
    },
  },
];

describe('business rules', () => {
  it('accept a compliant document with every rule on', async () => {
    const { view } = await submit(await signed(factura(++numbers)));
    expect({ state: view.state, rows: view.rows, freeText: view.freeText }).toEqual({
      state: 'aceptado',
      rows: [],
      freeText: [],
    });
  });

  it.each(CASES)('reject $name ($knob), and accept it with the knob off', async (c) => {
    const knobs = app.simulator.knobs();
    const off = Object.fromEntries((c.alsoOff ?? []).map((k) => [k, false]));
    app.simulator.configure(off);
    try {
      const { view, explained } = await submit(await c.build(++numbers));
      expect(view.state).toBe('rechazado');
      if ('code' in c.expect) {
        expect(view.freeText).toEqual([]);
        expect(view.rows.map((r) => r.code)).toEqual([c.expect.code]);
        if (c.expect.message) expect(view.rows[0]!.message).toMatch(c.expect.message);
      } else {
        expect(view.rows).toEqual([]);
        expect(view.freeText).toEqual([c.expect.freeText]);
      }
      // The service explains it: every reason recognised, by the entry for this rule.
      expect(explained.items.map((i) => i.kind)).toEqual(
        view.freeText.length > 0 ? [c.kind] : view.rows.map(() => c.kind),
      );

      app.simulator.configure({ [c.knob]: false });
      const lenient = await submit(await c.build(++numbers));
      expect({ state: lenient.view.state, rows: lenient.view.rows, freeText: lenient.view.freeText }).toEqual(
        {
          state: 'aceptado',
          rows: [],
          freeText: [],
        },
      );
    } finally {
      app.simulator.configure(knobs);
    }
  });

  it('has a case for every business-rule and signature knob', () => {
    const ruleKnobs = Object.keys(app.simulator.knobs()).filter(
      (k) =>
        k.startsWith('check') &&
        !['checkSignature', 'checkSchema', 'checkTotals', 'checkClave', 'checkConsecutivo'].includes(k),
    );
    expect(new Set(CASES.map((c) => c.knob))).toEqual(new Set(ruleKnobs));
    // Every catalogue entry these rules use says whether Hacienda's wording was confirmed.
    const used = new Set(CASES.map((c) => c.kind));
    const unconfirmed = CATALOGUE.filter((e) => used.has(e.id) && e.confirmed === false).map((e) => e.id);
    expect(unconfirmed.sort()).toEqual(
      [...used]
        .filter((k) => !['ubicacion', 'extemporaneo', 'plazo-credito', 'signature-policy-id'].includes(k))
        .sort(),
    );
  });
});

describe('operator files', () => {
  it('reads SIMULATOR_CABYS_FILE and SIMULATOR_TRUSTED_CA, and trusts certificates of that CA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-files-'));
    try {
      const material = await untrustedMaterial();
      const caPem = new X509Certificate(material.certificateChain[1]!).toString();
      writeFileSync(
        join(dir, 'cabys.csv'),
        'Código;Descripción\n8314100000100;Asesoría\n3221000000000;Libros\n',
      );
      writeFileSync(join(dir, 'ca.pem'), caPem);
      const config = loadSimulatorConfig({
        SIMULATOR_CABYS_FILE: join(dir, 'cabys.csv'),
        SIMULATOR_TRUSTED_CA: join(dir, 'ca.pem'),
      });
      expect([...config.cabysCatalogue].sort()).toEqual(['3221000000000', '8314100000100']);
      expect(config.cabysSource).toBe('SIMULATOR_CABYS_FILE');
      // Without the variable: the official catalogue shipped with the service.
      const shipped = loadSimulatorConfig({});
      expect(shipped.cabysSource).toBe('catalogues/cabys.tsv.gz');
      expect(shipped.cabysCatalogue.size).toBeGreaterThan(20_000);
      expect(shipped.cabysCatalogue.has('8314100000200')).toBe(true);
      expect(shipped.cabysCatalogue.has('0000000000000')).toBe(false);
      expect(config.trustedCertificates).toHaveLength(1);
      expect(() => loadSimulatorConfig({ SIMULATOR_CABYS_FILE: join(dir, 'ca.pem') })).toThrow(
        /^SIMULATOR_CABYS_FILE: no 13-digit CABYS code/,
      );

      const integrator = await buildSimulator({
        processingDelayMs: 0,
        cabysCatalogue: config.cabysCatalogue,
        trustedCertificates: config.trustedCertificates,
      });
      const [app0, token0] = [app, token];
      try {
        app = integrator;
        const res = await integrator.inject({
          method: 'POST',
          url: '/auth/realms/rut-stag/protocol/openid-connect/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'grant_type=password&client_id=api-stag&username=emisor&password=pw',
        });
        token = res.json<{ access_token: string }>().access_token;
        const b = factura(++numbers);
        const { view } = await submit({ ...b, xml: await (await createSigner(material)).sign(b.xml) });
        expect({ state: view.state, freeText: view.freeText, rows: view.rows }).toEqual({
          state: 'aceptado',
          freeText: [],
          rows: [],
        });
      } finally {
        [app, token] = [app0, token0];
        await integrator.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('territorial division', () => {
  it('holds the 84 cantons and 492 districts and names the unknown part', () => {
    expect(TERRITORIAL_DIVISION_SIZE).toEqual({ cantons: 84, districts: 492 });
    expect(unknownLocationPart({ provincia: '1', canton: '01', distrito: '11' })).toBeNull();
    expect(unknownLocationPart({ provincia: '6', canton: '13', distrito: '01' })).toBeNull();
    expect(unknownLocationPart({ provincia: '8', canton: '01', distrito: '01' })).toBe('provincia');
    expect(unknownLocationPart({ provincia: '3', canton: '09', distrito: '01' })).toBe('canton');
    // Río Cuarto left Grecia for its own canton (2-16): 2-03-06 is no longer a district.
    expect(unknownLocationPart({ provincia: '2', canton: '03', distrito: '06' })).toBe('distrito');
  });
});
