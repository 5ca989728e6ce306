// The API's words for sale conditions and payment methods, and Hacienda's codes behind them.
//
// `condition`: `contado` (01), `credito` or `credito_<days>` (02 with PlazoCredito, e.g.
// `credito_30`), `consignacion` (03), `apartado` (04), `arrendamiento_opcion_compra` (05),
// `arrendamiento_financiero_funcion` (06), `cobro_tercero` (07), `servicios_estado_credito` (08,
// credit days required), `credito_iva_90` (10, credit days required), `mercancia_no_nacionalizada`
// (12), `bienes_usados` (13), `arrendamiento_operativo` (14), `arrendamiento_financiero` (15),
// `otros` (99, with `condition_other`). Hacienda's two-digit codes are accepted as well.
import {
  CONDICIONES_VENTA_FE,
  CONDICIONES_VENTA_CREDITO,
  type CondicionVenta,
  type TipoMedioPago,
} from './codes.ts';

/** The API's names of the sale conditions (`credito_<days>` is 02 with its days). */
export const CONDITION_NAMES: Record<string, CondicionVenta> = {
  contado: '01',
  credito: '02',
  consignacion: '03',
  apartado: '04',
  arrendamiento_opcion_compra: '05',
  arrendamiento_financiero_funcion: '06',
  cobro_tercero: '07',
  servicios_estado_credito: '08',
  credito_iva_90: '10',
  mercancia_no_nacionalizada: '12',
  bienes_usados: '13',
  arrendamiento_operativo: '14',
  arrendamiento_financiero: '15',
  otros: '99',
};

/** Days of credit used when a credit condition names none. */
export const DEFAULT_CREDIT_DAYS = 30;

export type SaleCondition =
  | { ok: true; code: CondicionVenta; creditDays: number | null; name: string }
  | { ok: false; message: string };

export function resolveCondition(raw: string, creditDays?: number | null): SaleCondition {
  const value = raw.trim().toLowerCase();
  let code: CondicionVenta | undefined;
  let days = creditDays ?? null;
  const credit = /^credito_(\d{1,5})$/.exec(value);
  if (credit) {
    code = '02';
    const d = Number(credit[1]);
    if (days !== null && days !== d) return { ok: false, message: `credit_days ${days} contradicts ${raw}` };
    days = d;
  } else if (Object.hasOwn(CONDITION_NAMES, value)) {
    code = CONDITION_NAMES[value];
  } else if ((CONDICIONES_VENTA_FE as readonly string[]).includes(value)) {
    code = value as CondicionVenta;
  }
  if (!code || !(CONDICIONES_VENTA_FE as readonly string[]).includes(code)) {
    return {
      ok: false,
      message: `unknown condition "${raw}"; use contado, credito_<days>, ${Object.keys(CONDITION_NAMES).slice(2).join(', ')} or a CondicionVenta code`,
    };
  }
  const isCredit = (CONDICIONES_VENTA_CREDITO as readonly string[]).includes(code);
  if (isCredit && days === null) days = DEFAULT_CREDIT_DAYS;
  if (!isCredit && days !== null)
    return { ok: false, message: `credit_days applies only to credit conditions` };
  if (days !== null && (days < 1 || days > 99999))
    return { ok: false, message: 'credit_days must be 1..99999' };
  const name =
    code === '02'
      ? `credito_${days}`
      : (Object.entries(CONDITION_NAMES).find(([, c]) => c === code)?.[0] ?? code);
  return { ok: true, code, creditDays: days, name };
}

export const PAYMENT_METHODS: Record<string, TipoMedioPago> = {
  efectivo: '01',
  tarjeta: '02',
  cheque: '03',
  transferencia: '04',
  recaudado_terceros: '05',
  sinpe_movil: '06',
  plataforma_digital: '07',
  otros: '99',
};

export type PaymentMethodName = keyof typeof PAYMENT_METHODS;

export function isPaymentMethod(v: string): v is PaymentMethodName {
  return Object.hasOwn(PAYMENT_METHODS, v);
}
