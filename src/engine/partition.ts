// Which slice owns an LEI: FNV-1a over the upper-cased LEI, so the loader and lookups agree.

import { FNV_OFFSET, FNV_PRIME } from "./fnv.js";
import { upperAscii } from "./text.js";

function step(h: number, c: number): number {
  return Math.imul(h ^ upperAscii(c), FNV_PRIME);
}

export function sliceOf(lei: string, slices: number): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < lei.length; i++) h = step(h, lei.charCodeAt(i));
  return (h >>> 0) % slices;
}

/** sliceOf for an LEI given as its ASCII bytes, bytes[start, end): the loader never makes it a string. */
export function sliceOfBytes(bytes: Uint8Array, start: number, end: number, slices: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = step(h, bytes[i]);
  return (h >>> 0) % slices;
}
