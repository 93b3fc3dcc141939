// FNV-1a, 32 bits: the one cheap, stable hash the builder's term table, the LEI partition and the
// answer cache all use. Stable matters for the partition: the loader and lookups must agree.

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a of bytes[from, from + length), unsigned. */
export function fnv1a(bytes: Uint8Array, from: number, length: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < from + length; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h >>> 0;
}

/** fnv1a() of a string's char codes, each taken as one byte (ASCII). */
export function fnv1aOfAscii(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}
