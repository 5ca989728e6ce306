// Signed comprobantes for the Hacienda client and simulator tests: a Factura Electrónica built by
// the real builder (hacienda/xml) with totals from domain/totals, signed by the real signer with a
// sandbox test certificate of the emisor. Tamper helpers produce the broken variants.
import { buildClave, buildConsecutivo } from '../../domain/clave.ts';
import { computeDocumentTotals } from '../../domain/totals.ts';
import { createSigner } from '../../hacienda/signer.ts';
import type { XadesSigner } from '../../hacienda/signer.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';
import { buildFacturaXml } from '../../hacienda/xml/factura.ts';
import type { DocumentLine, FacturaDocument } from '../../hacienda/xml/types.ts';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/index.ts';
import { createReceptionClient, createTokenManager, HaciendaError } from '../../hacienda/client/index.ts';
import type {
  Clock,
  ReceptionClient,
  ReceptionClientOptions,
  SubmitDocument,
  TokenManager,
} from '../../hacienda/client/index.ts';
import { buildSimulator } from '../../simulator/app.ts';
import type { SimulatorApp, SimulatorOptions } from '../../simulator/app.ts';

export const EMISOR = {
  idType: '02',
  idNumber: '3101123456',
  name: 'Servicios Ejemplo Sociedad Anonima',
} as const;
export const OTHER_TAXPAYER = {
  idType: '01',
  idNumber: '102340567',
  name: 'Persona Ajena Al Emisor',
} as const;

const signers = new Map<string, Promise<XadesSigner>>();

/** A signer holding a test certificate for the given taxpayer (cached per taxpayer). */
export function signerFor(who: { idType: string; idNumber: string; name: string }): Promise<XadesSigner> {
  const key = `${who.idType}-${who.idNumber}`;
  let s = signers.get(key);
  if (!s) {
    s = createTestCertificate(who).then((c) => createSigner(c.material));
    signers.set(key, s);
  }
  return s;
}

export const SERVICE_LINE: DocumentLine = {
  cabys: '8314100000200',
  description: 'Consultoría en sistemas',
  quantity: '2',
  unitPrice: '50000',
  unit: 'Sp',
  ivaRateCode: '08',
};

export const GOODS_LINE: DocumentLine = {
  cabys: '4522003990000',
  description: 'Computadora portátil',
  quantity: '1',
  unitPrice: '350000.55',
  unit: 'Unid',
  ivaRateCode: '08',
  discounts: [{ amount: '10000', code: '07' }],
};

export interface FacturaOptions {
  number: number;
  lines?: readonly DocumentLine[];
  issuedAt?: Date;
  branch?: string;
  terminal?: string;
  securityCode?: string;
}

export interface BuiltFactura {
  clave: string;
  consecutivo: string;
  issuedAt: Date;
  xml: string;
}

export function buildFactura(options: FacturaOptions): BuiltFactura {
  const issuedAt = options.issuedAt ?? new Date();
  const consecutivo = buildConsecutivo({
    branch: options.branch ?? '001',
    terminal: options.terminal ?? '00001',
    docType: '01',
    number: options.number,
  });
  const clave = buildClave({
    date: issuedAt,
    emisorId: EMISOR.idNumber,
    consecutivo,
    situacion: '1',
    securityCode: options.securityCode ?? String(10_000_000 + options.number).slice(-8),
  });
  const lines = options.lines ?? [SERVICE_LINE, GOODS_LINE];
  const doc: FacturaDocument = {
    clave,
    consecutivo,
    issuedAt,
    proveedorSistemas: EMISOR.idNumber,
    activityCode: '620100',
    emisor: {
      name: EMISOR.name,
      idType: EMISOR.idType,
      idNumber: EMISOR.idNumber,
      ubicacion: { provincia: '1', canton: '01', distrito: '01', otrasSenas: 'Avenida Central, calle 1' },
      emails: ['facturas@example.cr'],
    },
    receptor: { name: 'Cliente Ejemplo', idType: '01', idNumber: '109870654', email: 'cliente@example.cr' },
    condicionVenta: '01',
    mediosPago: [{ type: '04' }],
    lines,
    totals: computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' }),
  };
  return { clave, consecutivo, issuedAt, xml: buildFacturaXml(doc) };
}

/** The reception request for a signed document. */
export function submission(
  built: { clave: string; issuedAt: Date },
  signedXml: string,
  extra: Partial<SubmitDocument> = {},
): SubmitDocument {
  return {
    clave: built.clave,
    fecha: built.issuedAt.toISOString(),
    emisor: { tipoIdentificacion: EMISOR.idType, numeroIdentificacion: EMISOR.idNumber },
    receptor: { tipoIdentificacion: '01', numeroIdentificacion: '109870654' },
    comprobanteXml: Buffer.from(signedXml, 'utf8').toString('base64'),
    ...extra,
  };
}

/** Replaces the text of the first element with this local name (after signing: breaks the digest). */
export function replaceElementText(xml: string, name: string, value: string): string {
  const re = new RegExp(`(<(?:[\\w.-]+:)?${name}>)([^<]*)(</)`);
  if (!re.test(xml)) throw new Error(`no <${name}> in the document`);
  return xml.replace(re, `$1${value}$3`);
}

// ---------------------------------------------------------------------------------------------
// A simulator on a real port and clients pointed at it.

export const XSD_DIR = loadConfig().xsdDir;

export interface RunningSimulator {
  app: SimulatorApp;
  origin: string;
  sandbox: { idpUrl: string; apiUrl: string; clientId: string };
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const app = await buildSimulator({ processingDelayMs: 0, ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    app,
    origin,
    sandbox: {
      idpUrl: `${origin}/auth/realms/rut-stag/protocol/openid-connect/token`,
      apiUrl: `${origin}/recepcion-sandbox/v1`,
      clientId: 'api-stag',
    },
  };
}

export interface ClientSetup {
  tokens: TokenManager;
  client: ReceptionClient;
}

export function clientFor(
  sim: RunningSimulator,
  options: { clock?: Clock; username?: string; password?: string } & Partial<ReceptionClientOptions> = {},
): ClientSetup {
  const { clock, username, password, ...rest } = options;
  const tokens = createTokenManager({
    idpUrl: sim.sandbox.idpUrl,
    clientId: sim.sandbox.clientId,
    username: username ?? 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr',
    password: password ?? 'secreto',
    ...(clock ? { clock } : {}),
  });
  const client = createReceptionClient({
    apiUrl: sim.sandbox.apiUrl,
    tokens,
    ...(clock ? { clock } : {}),
    ...rest,
  });
  return { tokens, client };
}

/** A clock whose sleeps advance time instantly (share `now` with the simulator). */
export function fakeClock(start = Date.now()): Clock & { advance(ms: number): void; slept: number[] } {
  let t = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    sleep: async (ms) => {
      slept.push(ms);
      t += Math.max(0, ms);
    },
  };
}

/** Polls the status until Hacienda's answer is terminal (transient failures are polled through). */
export async function pollUntilTerminal(client: ReceptionClient, clave: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const s = await client.status(clave);
      if (s.found && s.terminal) return s;
    } catch (err) {
      if (!(err instanceof HaciendaError) || !err.retryable) throw err;
    }
    if (Date.now() > deadline) throw new Error(`clave ${clave} not terminal after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
