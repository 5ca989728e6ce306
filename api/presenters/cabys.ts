// The public JSON of a CABYS catalogue entry (schema: api/schemas/cabys.ts).
import type { Static } from 'typebox';
import type { CabysEntry } from '../../domain/cabys.ts';
import type { CabysObject } from '../schemas/cabys.ts';

export function cabysObject(e: CabysEntry): Static<typeof CabysObject> {
  return {
    object: 'cabys',
    codigo: e.code,
    descripcion: e.description,
    impuesto: e.taxRate,
    impuesto_texto: e.tax,
    categorias: e.categories.map((c) => ({ nivel: c.level, codigo: c.code, descripcion: c.description })),
  };
}
