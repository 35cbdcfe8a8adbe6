/** A seeded source of plausible numbers and ids: the same seed draws the same values in order. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  pick<T>(items: readonly T[]): T;
  /** An integer in [low, high]. */
  between(low: number, high: number): number;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
}

/** mulberry32: small, seeded, good enough for plausible numbers. */
export function createRandom(seed: number): Random {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  // Closures rather than methods so callers can destructure them.
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const between = (low: number, high: number) => Math.floor(low + next() * (high - low + 1));
  const hex = (length: number) =>
    Array.from({ length }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('');
  return { next, pick, between, hex };
}
