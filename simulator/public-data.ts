// What the simulator's public services know: a seeded taxpayer register (the companies and
// clients the tests, the demo and the benchmarks use, plus one of each identification type and
// situation) and a deterministic dollar rate for every day. Shapes as Hacienda's api.hacienda.go.cr
// documents them (see public-data-routes.ts).

export interface SimTaxpayer {
  identificacion: string;
  nombre: string;
  tipoIdentificacion: '01' | '02' | '03' | '04';
  regimen: { codigo: number; descripcion: string };
  situacion: {
    moroso: 'SI' | 'NO';
    omiso: 'SI' | 'NO';
    estado: string;
    administracionTributaria: string;
    mensaje?: string;
  };
  actividades: { estado: 'A' | 'I'; tipo: 'P' | 'S'; codigo: string; descripcion: string }[];
}

const GENERAL = { codigo: 1, descripcion: 'Régimen General' };
const SIMPLIFICADO = { codigo: 2, descripcion: 'Régimen Simplificado' };
const NO_APLICA = { codigo: 0, descripcion: 'No aplica' };
const al = (adm: string, moroso: 'SI' | 'NO' = 'NO', omiso: 'SI' | 'NO' = 'NO') => ({
  moroso,
  omiso,
  estado: 'Inscrito',
  administracionTributaria: adm,
});
const act = (codigo: string, descripcion: string, tipo: 'P' | 'S' = 'P', estado: 'A' | 'I' = 'A') => ({
  estado,
  tipo,
  codigo,
  descripcion,
});

function company(identificacion: string, nombre: string, ...actividades: SimTaxpayer['actividades']) {
  return {
    identificacion,
    nombre,
    tipoIdentificacion: '02' as const,
    regimen: GENERAL,
    situacion: al('San José Oeste'),
    actividades,
  };
}

const CONSULTING = act('620100', 'ACTIVIDADES DE PROGRAMACION INFORMATICA');

export const SEED_TAXPAYERS: readonly SimTaxpayer[] = [
  // The service's test emisor and the demo company (npm start) share this cédula jurídica.
  company(
    '3101123456',
    'SERVICIOS EJEMPLO SOCIEDAD ANONIMA',
    CONSULTING,
    act('523101', 'VENTA AL POR MENOR DE COMPUTADORAS Y EQUIPO PERIFERICO', 'S'),
  ),
  company('3101654321', 'PARQUEO CENTRAL SOCIEDAD ANONIMA', act('522101', 'ESTACIONAMIENTOS')),
  company('3101765432', 'DISTRIBUIDORA EJEMPLO SOCIEDAD ANONIMA', act('513901', 'VENTA AL POR MAYOR')),
  company('3101000001', 'BENCH UNO SOCIEDAD ANONIMA', CONSULTING),
  company('3101000002', 'BENCH DOS SOCIEDAD ANONIMA', CONSULTING),
  {
    identificacion: '2100042005',
    nombre: 'ESTADO-MINISTERIO DE HACIENDA',
    tipoIdentificacion: '02',
    regimen: { codigo: 1, descripcion: 'Régimen Tradicional' },
    situacion: al('San Jose'),
    actividades: [act('751101', 'ACTIVIDADES DE LA ADMINISTRACION PUBLICA EN GENERAL', 'P', 'I')],
  },
  {
    identificacion: '102340567',
    nombre: 'JUANA PEREZ MORA',
    tipoIdentificacion: '01',
    regimen: SIMPLIFICADO,
    situacion: al('San José Este'),
    actividades: [act('721001', 'CONSULTORES INFORMATICOS')],
  },
  {
    identificacion: '109870654',
    nombre: 'PROVEEDORA EJEMPLO ROJAS',
    tipoIdentificacion: '01',
    regimen: GENERAL,
    situacion: al('Alajuela', 'SI'),
    actividades: [act('523902', 'VENTA AL POR MENOR DE SUMINISTROS Y/0 EQUIPO DE OFICINA')],
  },
  {
    identificacion: '401230456',
    nombre: 'CARLOS ROJAS VARGAS',
    tipoIdentificacion: '01',
    regimen: NO_APLICA,
    situacion: {
      ...al('Heredia', 'NO', 'SI'),
      estado: 'No inscrito',
      mensaje: 'El contribuyente no se encuentra inscrito ante la Administración Tributaria',
    },
    actividades: [],
  },
  {
    identificacion: '155812345678',
    nombre: 'MARIA FERNANDA LOPEZ GARCIA',
    tipoIdentificacion: '03',
    regimen: GENERAL,
    situacion: al('Zona Sur'),
    actividades: [act('960901', 'OTRAS ACTIVIDADES DE SERVICIOS PERSONALES')],
  },
  // A NITE (04): ten digits, like a cédula jurídica; only the register tells them apart.
  {
    identificacion: '4000123456',
    nombre: 'ANDREA SOLIS CHAVES',
    tipoIdentificacion: '04',
    regimen: GENERAL,
    situacion: al('Grandes Contribuyentes'),
    actividades: [act('741401', 'ACTIVIDADES DE CONSULTORIA EN GESTION')],
  },
];

const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(2020, 0, 1);

const two = (n: number) => n.toFixed(2);

/**
 * The simulator's dollar rate of a day (YYYY-MM-DD): a smooth, repeatable series around ₡505,
 * sell above buy by a bank's usual spread. Any test can compute the same figure.
 */
export function simulatedUsdRate(date: string): { compra: number; venta: number } {
  const days = Math.round((Date.parse(`${date}T00:00:00Z`) - EPOCH) / DAY_MS);
  const venta = Number(two(512 + 9 * Math.sin(days / 29) + ((days * 37) % 100) / 100));
  return { compra: Number(two(venta - 6.4)), venta };
}

/** The days from d to h (YYYY-MM-DD, both included), at most `max`. */
export function daysBetween(d: string, h: string, max: number): string[] {
  const out: string[] = [];
  for (
    let t = Date.parse(`${d}T00:00:00Z`);
    t <= Date.parse(`${h}T00:00:00Z`) && out.length < max;
    t += DAY_MS
  )
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}
