// Randomness for fault injection: a seedable generator so a run can be replayed, and a stable
// per-clave fraction so "reject 10% of documents" picks the same documents on every run.
import { createHash } from 'node:crypto';

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** True with probability p. */
  chance(p: number): boolean;
}

/** mulberry32: tiny, fast and good enough to decide faults; not for anything secret. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, chance: (p) => p > 0 && next() < p };
}

/** A fraction in [0, 1) derived from the clave and a salt (each knob uses its own salt). */
export function claveFraction(clave: string, salt: string): number {
  const h = createHash('sha256').update(salt).update('\u0000').update(clave).digest();
  return h.readUInt32BE(0) / 4294967296;
}
