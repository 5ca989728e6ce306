// CABYS catalogue schemas: the official Catálogo de Bienes y Servicios shipped with the service.
// Field names follow Hacienda's public CABYS service (api.hacienda.go.cr/fe/cabys: codigo,
// descripcion, impuesto, categorias; cantidad and total for a search).
import { Type } from 'typebox';
import { nameSchemas } from './common.ts';

export const CabysCategoryObject = Type.Object({
  nivel: Type.Integer({ minimum: 1, maximum: 8, description: 'Level 1–8 of the hierarchy' }),
  codigo: Type.String({
    pattern: '^\\d{1,11}$',
    examples: ['8'],
    description: "The category's code: the CABYS code's first 1, 2, 3, 4, 5, 7, 9 or 11 digits",
  }),
  descripcion: Type.Union([Type.String(), Type.Null()], {
    description: 'The category name, or null when the shipped catalogue does not carry it',
  }),
});

const CATEGORIES_EXAMPLE = [
  { nivel: 1, codigo: '8', descripcion: 'Servicios prestados a las empresas y servicios de producción' },
  ...['83', '831', '8314', '83141', '8314100', '831410000', '83141000002'].map((codigo, i) => ({
    nivel: i + 2,
    codigo,
    descripcion: null,
  })),
];
const CABYS_EXAMPLE = {
  object: 'cabys',
  codigo: '8314100000200',
  descripcion: 'Servicios de diseño y desarrollo de tecnologías de información para aplicaciones',
  impuesto: 13,
  impuesto_texto: '13%',
  categorias: CATEGORIES_EXAMPLE,
};

export const CabysObject = Type.Object(
  {
    object: Type.Literal('cabys'),
    codigo: Type.String({ pattern: '^\\d{13}$', examples: ['8314100000200'] }),
    descripcion: Type.String({
      examples: ['Servicios de diseño y desarrollo de tecnologías de información para aplicaciones'],
    }),
    impuesto: Type.Number({
      description: "The catalogue's IVA rate in percent (13, 4, 2, 1; 0 when exento)",
      examples: [13],
    }),
    impuesto_texto: Type.String({
      description: 'The rate as the catalogue writes it: `13%`, `1%`, `Exento`, `na`',
      examples: ['13%'],
    }),
    categorias: Type.Array(CabysCategoryObject, {
      description: 'Levels 1–8, from the widest',
      examples: [CATEGORIES_EXAMPLE],
    }),
  },
  // No object-level example: the object is also nested in CabysSearchResult (one named schema).
);

export const CabysSearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Words of the description (accents and case ignored; each word matches the start of a word), or the first digits of a code',
    }),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many results (1-100)' }),
    ),
  },
  { additionalProperties: false },
);

export const CabysSearchResult = Type.Object(
  {
    object: Type.Literal('list'),
    cabys: Type.Array(CabysObject, { description: 'Best matches first' }),
    cantidad: Type.Integer({ description: 'How many are in `cabys`' }),
    total: Type.Integer({ description: 'How many entries match in all' }),
  },
  { examples: [{ object: 'list', cabys: [CABYS_EXAMPLE], cantidad: 1, total: 1 }] },
);

export const CabysCodeParam = Type.Object({
  code: Type.String({ description: 'The 13-digit CABYS code' }),
});

nameSchemas({ CabysCategory: CabysCategoryObject, Cabys: CabysObject, CabysSearchResult });
