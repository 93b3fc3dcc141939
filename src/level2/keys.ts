// Identifiers as numbers, so that millions of rows sort by radix on typed arrays instead of
// comparing strings: an LEI is two base-36 halves of 10 characters (< 2^52 each), an ISIN two
// halves of 6 (< 2^32), a BIC an 8-character head and a 3-character branch.

import { ChunkedArray } from "../engine/chunked-array.js";

function digitOf(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : -1;
}

/** bytes[start, start + length) as a base-36 number; -1 when a byte is not 0-9 or A-Z. */
export function base36(bytes: Uint8Array, start: number, length: number): number {
  let v = 0;
  for (let i = start; i < start + length; i++) {
    const d = digitOf(bytes[i]);
    if (d < 0) return -1;
    v = v * 36 + d;
  }
  return v;
}

/** Writes `value` as `length` base-36 characters at buf[at]. */
export function writeBase36(value: number, length: number, buf: Uint8Array, at: number): void {
  for (let i = at + length - 1; i >= at; i--) {
    const d = value % 36;
    buf[i] = d < 10 ? 48 + d : 55 + d;
    value = (value - d) / 36;
  }
}

/**
 * Row order by keys, most significant first (each a non-negative integer below 2^bits): an LSD
 * radix sort, 13 bits a pass, stable, so rows equal in every key keep the order they came in.
 */
export function radixOrder(n: number, keys: { values: ArrayLike<number>; bits: number }[]): Uint32Array {
  let order = new Uint32Array(n),
    next = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Uint32Array(1 << 13);
  for (let k = keys.length - 1; k >= 0; k--) {
    const { values, bits } = keys[k];
    for (let pass = 0; pass * 13 < bits; pass++) {
      const scale = 2 ** (13 * pass);
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[Math.floor(values[i] / scale) & 8191]++;
      for (let b = 0, sum = 0; b < counts.length; b++) {
        const c = counts[b];
        counts[b] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) {
        const x = order[i];
        next[counts[Math.floor(values[x] / scale) & 8191]++] = x;
      }
      [order, next] = [next, order];
    }
  }
  return order;
}

export const f64s = (): ChunkedArray<Float64Array> => new ChunkedArray((n) => new Float64Array(n));
export const u32s = (): ChunkedArray<Uint32Array> => new ChunkedArray((n) => new Uint32Array(n));
export const u8s = (): ChunkedArray<Uint8Array> => new ChunkedArray((n) => new Uint8Array(n));
