// GET /fe/ae?identificacion=<número>: a taxpayer as Hacienda's register has it. The answer
// (documented at api.hacienda.go.cr/docs and seen in public code that calls it):
//   { nombre, tipoIdentificacion: "01"|"02"|"03"|"04",
//     regimen: { codigo: 0|1|2, descripcion },
//     situacion: { moroso: "SI"|"NO", omiso: "SI"|"NO", estado: "Inscrito"|…, administracionTributaria,
//                  mensaje? (only when not inscribed) },
//     actividades: [{ estado: "A"|"I", tipo: "P"|"S", codigo: 751101 | "721001" | "6492.0", descripcion }] }
// and 404 for a number it does not know. The number goes without hyphens; a física without its
// leading zero (Hacienda answers 400 to a number that starts with 0).
import { normalizeIdentification } from '../../domain/identification.ts';
import type { GetJson } from './get-json.ts';
import { PublicDataNotFoundError, PublicDataUnavailableError } from './errors.ts';

export interface TaxpayerActivity {
  /** As Hacienda writes it, as text (older answers give a number). */
  code: string;
  description: string;
  /** estado: A (activa) or I (inactiva). */
  status: string;
  /** tipo: P (primaria) or S (secundaria). */
  type: string;
}

export interface Taxpayer {
  /** The number asked for, as sent to Hacienda. */
  identification: string;
  name: string;
  /** Nota 4: 01 física, 02 jurídica, 03 DIMEX, 04 NITE. */
  identificationType: string;
  regime: { code: number | null; description: string | null };
  situation: {
    moroso: boolean;
    omiso: boolean;
    estado: string | null;
    administracionTributaria: string | null;
    mensaje: string | null;
  };
  activities: TaxpayerActivity[];
}

/** The number as Hacienda's service wants it: digits only, no leading zeros. Null if unusable. */
export function taxpayerQueryNumber(raw: string): string | null {
  const digits = normalizeIdentification(raw);
  if (!/^\d+$/.test(digits)) return null;
  const n = digits.replace(/^0+/, '');
  return n.length >= 9 && n.length <= 12 ? n : null;
}

const text = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null;
const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function activities(v: unknown): TaxpayerActivity[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((a) => {
    const o = obj(a);
    const code = text(o.codigo);
    if (!code) return [];
    return [
      {
        code,
        description: text(o.descripcion) ?? '',
        status: text(o.estado) ?? '',
        type: text(o.tipo) ?? '',
      },
    ];
  });
}

/** Hacienda's JSON as our Taxpayer; a body without nombre and tipoIdentificacion is not an answer. */
export function readTaxpayer(identification: string, body: unknown): Taxpayer {
  const o = obj(body);
  const name = text(o.nombre);
  const type = text(o.tipoIdentificacion);
  if (!name || !type)
    throw new PublicDataUnavailableError('Hacienda answered a taxpayer without nombre', 'bad_answer', 200);
  const regimen = obj(o.regimen);
  const situacion = obj(o.situacion);
  const code = Number(regimen.codigo);
  return {
    identification,
    name,
    identificationType: type.padStart(2, '0'),
    regime: { code: Number.isInteger(code) ? code : null, description: text(regimen.descripcion) },
    situation: {
      moroso: text(situacion.moroso)?.toUpperCase() === 'SI',
      omiso: text(situacion.omiso)?.toUpperCase() === 'SI',
      estado: text(situacion.estado),
      administracionTributaria: text(situacion.administracionTributaria),
      mensaje: text(situacion.mensaje),
    },
    activities: activities(o.actividades),
  };
}

/** The taxpayer of a number, or PublicDataNotFoundError / PublicDataUnavailableError. */
export async function fetchTaxpayer(getJson: GetJson, number: string): Promise<Taxpayer> {
  const q = taxpayerQueryNumber(number);
  if (!q) throw new PublicDataNotFoundError(`${number} is not a number Hacienda's register can hold`);
  return readTaxpayer(q, await getJson('/fe/ae', { identificacion: q }));
}

/** Whether an activity code is one of the registered ones ("6492.0" and "64920" are the same code). */
export function activityRegistered(code: string, registered: readonly TaxpayerActivity[]): boolean {
  const bare = (c: string) => c.replace(/\D/g, '').replace(/0+$/, '');
  return registered.some((a) => a.code === code || bare(a.code) === bare(code));
}
