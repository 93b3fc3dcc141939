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

const DIGITS = Buffer.from("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "latin1");
const P5 = 36 ** 5;

/** Writes `value` as `length` (at most 10) base-36 characters at buf[at]: in parts of 5, with integer arithmetic. */
export function writeBase36(value: number, length: number, buf: Uint8Array, at: number): void {
  if (length > 5) {
    const high = Math.floor(value / P5);
    writeSmall(value - high * P5, 5, buf, at + length - 5);
    writeSmall(high, length - 5, buf, at);
  } else writeSmall(value, length, buf, at);
}

function writeSmall(value: number, length: number, buf: Uint8Array, at: number): void {
  let v = value | 0;
  for (let i = at + length - 1; i >= at; i--) {
    const q = (v / 36) | 0;
    buf[i] = DIGITS[v - q * 36];
    v = q;
  }
}

/** Writes the LEI given as its two base-36 halves at buf[at]. */
export function writeLei(hi: number, lo: number, buf: Uint8Array, at: number): void {
  writeBase36(hi, 10, buf, at);
  writeBase36(lo, 10, buf, at + 10);
}

/** Writes LEIs given as base-36 halves; an LEI like the one before is copied, not worked out again. */
export class LeiWriter {
  private hi = -1;
  private lo = -1;
  private readonly last = Buffer.alloc(20);

  write(hi: number, lo: number, buf: Uint8Array, at: number): void {
    if (hi !== this.hi || lo !== this.lo) {
      writeLei(hi, lo, this.last, 0);
      this.hi = hi;
      this.lo = lo;
    }
    for (let i = 0; i < 20; i++) buf[at + i] = this.last[i];
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
  // GLEIF's files come sorted by their first column: often there is nothing to do
  if (inOrder(n, keys)) return order;
  const counts = new Uint32Array(1 << 13);
  for (let k = keys.length - 1; k >= 0; k--) {
    const { values, bits } = keys[k];
    for (let pass = 0; pass * 13 < bits; pass++) {
      // a power of two: the division is exact, and `& 8191` takes the low 13 bits of its whole part
      const scale = 2 ** (13 * pass);
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[(values[i] / scale) & 8191]++;
      for (let b = 0, sum = 0; b < counts.length; b++) {
        const c = counts[b];
        counts[b] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) {
        const x = order[i];
        next[counts[(values[x] / scale) & 8191]++] = x;
      }
      [order, next] = [next, order];
    }
  }
  return order;
}

/** Whether the rows are already in key order. */
function inOrder(n: number, keys: { values: ArrayLike<number> }[]): boolean {
  for (let i = 1; i < n; i++) {
    for (const { values } of keys) {
      const a = values[i - 1],
        b = values[i];
      if (a < b) break;
      if (a > b) return false;
    }
  }
  return true;
}

export const f64s = (): ChunkedArray<Float64Array> => new ChunkedArray((n) => new Float64Array(n));
export const u32s = (): ChunkedArray<Uint32Array> => new ChunkedArray((n) => new Uint32Array(n));
export const u8s = (): ChunkedArray<Uint8Array> => new ChunkedArray((n) => new Uint8Array(n));
