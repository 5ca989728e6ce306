// The invoice objects a list answers with, kept as their JSON bytes in each API process, so a
// page whose rows have not changed since it was last shown (a dashboard opened again, an
// integration polling its pending invoices) costs one light query and no parsing, rendering or
// serialising of its rows.
//
// An entry is keyed by the invoice's id, its row version and the language it was rendered in
// (the rejection reason's text). The row version is Postgres's `xmin` (db/queries/invoices.ts):
// every update writes the row anew under the id of the transaction that wrote it, so an entry
// can only ever show the row as it is now; nothing has to be invalidated, and versions no
// longer read age out, least recently used first. The rendering is a pure function of the row.
import { LRUCache } from 'lru-cache';

/** At most this many bytes of JSON per API process: about 10,000 invoices. */
export const RENDERED_INVOICES_BYTES = 32 * 1024 * 1024;

export type Language = 'es' | 'en';

export interface RowVersion {
  id: number;
  version: string;
}

export class RenderedInvoices {
  private readonly cache: LRUCache<string, Buffer>;

  constructor(maxBytes = RENDERED_INVOICES_BYTES) {
    this.cache = new LRUCache<string, Buffer>({
      maxSize: maxBytes,
      sizeCalculation: (json, key) => json.length + key.length,
    });
  }

  /** The JSON of every row of the page (none for an empty page), or null when any of them is not kept. */
  page(rows: RowVersion[], lang: Language): Buffer[] | null {
    const out: Buffer[] = [];
    for (const r of rows) {
      const json = this.cache.get(keyOf(r, lang));
      if (json === undefined) return null;
      out.push(json);
    }
    return out;
  }

  /**
   * Keeps a row's JSON (as UTF-8) and returns it. The bytes get a buffer of their own, outside
   * Node's shared pool (where a small Buffer.from lands), so what is kept is what is counted.
   */
  keep(r: RowVersion, lang: Language, json: string): Buffer {
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json, 'utf8'));
    bytes.write(json, 'utf8');
    this.cache.set(keyOf(r, lang), bytes);
    return bytes;
  }

  get size(): number {
    return this.cache.size;
  }
}

const keyOf = (r: RowVersion, lang: Language) => `${r.id}:${r.version}:${lang}`;

const HEAD = Buffer.from('{"object":"list","data":[');
const COMMA = Buffer.from(',');
const TAIL = { true: Buffer.from('],"has_more":true}'), false: Buffer.from('],"has_more":false}') };

/**
 * A list answer (the ListOf schema's order: object, data, has_more) from its items' JSON: the
 * bytes are copied, never encoded again.
 */
export function listJson(items: Buffer[], hasMore: boolean): Buffer {
  const parts: Buffer[] = [HEAD];
  items.forEach((b, i) => parts.push(...(i ? [COMMA, b] : [b])));
  parts.push(TAIL[`${hasMore}`]);
  return Buffer.concat(parts);
}
