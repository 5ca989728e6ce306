// Costa Rican formats for what people read: amounts in colones (₡) or dollars with the decimal
// comma, dates dd/mm/yyyy and 24 h times, always in Costa Rica's time zone.
const TIME_ZONE = 'America/Costa_Rica';

export type Currency = 'CRC' | 'USD';

const money = new Map<string, Intl.NumberFormat>();

/** ₡1 234,50 (es-CR) or the same amount in USD; a decimal string or a number. */
export function formatMoney(amount: string | number, currency: Currency | string = 'CRC'): string {
  const key = currency;
  let f = money.get(key);
  if (!f) {
    f = new Intl.NumberFormat('es-CR', { style: 'currency', currency, minimumFractionDigits: 2 });
    money.set(key, f);
  }
  return f.format(typeof amount === 'number' ? amount : Number(amount));
}

const dateFormat = new Intl.DateTimeFormat('es-CR', {
  timeZone: TIME_ZONE,
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
});
const timeFormat = new Intl.DateTimeFormat('es-CR', {
  timeZone: TIME_ZONE,
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

function parts(f: Intl.DateTimeFormat, value: Date): Record<string, string> {
  return Object.fromEntries(f.formatToParts(value).map((p) => [p.type, p.value]));
}

/** dd/mm/yyyy in Costa Rica. */
export function formatDate(value: string | Date): string {
  const p = parts(dateFormat, new Date(value));
  return `${p.day}/${p.month}/${p.year}`;
}

/** HH:mm (24 h) in Costa Rica. */
export function formatTime(value: string | Date): string {
  const p = parts(timeFormat, new Date(value));
  return `${p.hour}:${p.minute}`;
}

/** dd/mm/yyyy HH:mm in Costa Rica. */
export function formatDateTime(value: string | Date | null | undefined): string {
  if (!value) return '—';
  return `${formatDate(value)} ${formatTime(value)}`;
}
