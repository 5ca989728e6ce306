// Costa Rica's territorial division as Hacienda codes an address (Ubicacion): Provincia (1 digit),
// Canton (2 digits within the province), Distrito (2 digits within the canton). Data only, no I/O:
// the service validates addresses with it, and the Hacienda simulator checks Emisor and Receptor
// locations against it as Hacienda does (-37 for the emisor, rejection texts seen in Hacienda's answers).
//
// Source: the current División Territorial Administrativa (7 provinces, 84 cantons including Río
// Cuarto 2-16, Monteverde 6-12 and Puerto Jiménez 6-13; districts that moved to a new canton keep
// their old number unused, hence the gaps in Grecia 2-03, Puntarenas 6-01 and Golfito 6-07).
// Hacienda's own file (Codificacionubicacion_V4.4) was not available to compare against; a code
// Hacienda knows and this table lacks would be a data error here, to be fixed in this table.

/** Districts of each canton, keyed by provincia + canton (`'101'`); `n` means 01..n. */
const DISTRICTS: Readonly<Record<string, number | readonly number[]>> = {
  // 1 San José
  '101': 11, '102': 3, '103': 13, '104': 9, '105': 3, '106': 7, '107': 7, '108': 7, '109': 6,
  '110': 5, '111': 5, '112': 5, '113': 5, '114': 3, '115': 4, '116': 5, '117': 3, '118': 4,
  '119': 12, '120': 6,
  // 2 Alajuela
  '201': 14, '202': 14, '203': [1, 2, 3, 4, 5, 7, 8], '204': 4, '205': 8, '206': 8, '207': 7,
  '208': 5, '209': 5, '210': 13, '211': 7, '212': 5, '213': 8, '214': 4, '215': 4, '216': 3,
  // 3 Cartago
  '301': 11, '302': 6, '303': 8, '304': 4, '305': 12, '306': 3, '307': 5, '308': 4,
  // 4 Heredia
  '401': 5, '402': 7, '403': 8, '404': 6, '405': 5, '406': 4, '407': 3, '408': 3, '409': 2,
  '410': 5,
  // 5 Guanacaste
  '501': 5, '502': 7, '503': 9, '504': 4, '505': 4, '506': 5, '507': 4, '508': 8, '509': 6,
  '510': 4, '511': 5,
  // 6 Puntarenas
  '601': [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16], '602': 6, '603': 9, '604': 3,
  '605': 6, '606': 3, '607': [1, 3, 4], '608': 6, '609': 1, '610': 4, '611': 3, '612': 1, '613': 1,
  // 7 Limón
  '701': 4, '702': 7, '703': 7, '704': 4, '705': 3, '706': 5,
}; // prettier-ignore

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Every valid `provincia + canton + distrito` code (`'10108'`). */
const LOCATIONS: ReadonlySet<string> = new Set(
  Object.entries(DISTRICTS).flatMap(([canton, spec]) => {
    const numbers = typeof spec === 'number' ? Array.from({ length: spec }, (_, i) => i + 1) : spec;
    return numbers.map((d) => canton + pad2(d));
  }),
);

export const PROVINCIAS = {
  '1': 'San José',
  '2': 'Alajuela',
  '3': 'Cartago',
  '4': 'Heredia',
  '5': 'Guanacaste',
  '6': 'Puntarenas',
  '7': 'Limón',
} as const;

export interface LocationCodes {
  provincia: string;
  canton: string;
  distrito: string;
}

/** Which part of an address is not in the territorial division, or null when all of it is. */
export function unknownLocationPart(loc: LocationCodes): 'provincia' | 'canton' | 'distrito' | null {
  if (!Object.hasOwn(PROVINCIAS, loc.provincia)) return 'provincia';
  if (!/^\d{2}$/.test(loc.canton) || !Object.hasOwn(DISTRICTS, loc.provincia + loc.canton)) return 'canton';
  if (!/^\d{2}$/.test(loc.distrito) || !LOCATIONS.has(loc.provincia + loc.canton + loc.distrito))
    return 'distrito';
  return null;
}

/** Number of cantons and districts in the table (for tests and operator screens). */
export const TERRITORIAL_DIVISION_SIZE = {
  cantons: Object.keys(DISTRICTS).length,
  districts: LOCATIONS.size,
} as const;
