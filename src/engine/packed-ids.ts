// Doc and term ids of the two largest index arrays (postDocs, fwdTerms), stored in 3 bytes each
// when every id fits: a slice holds at most a few million docs and terms, far below 2^24, so a
// fourth byte per entry would be a quarter of those arrays for nothing. The engine reads an entry
// as an unaligned u32 and masks off the top byte (native/assembly/slice.ts), which is why a packed
// array carries one byte more than its entries.

/** Ids as stored: a Uint8Array is packed, 3 little-endian bytes an id; a Uint32Array is not. */
export type IdArray = Uint8Array | Uint32Array;

const PACKED_LIMIT = 2 ** 24;

/** Bytes an entry of `ids` takes. */
export function idBytes(ids: IdArray): 3 | 4 {
  return ids instanceof Uint8Array ? 3 : 4;
}

/** How many ids `ids` holds. */
export function idCount(ids: IdArray): number {
  return ids instanceof Uint8Array ? (ids.length - 1) / 3 : ids.length;
}

/**
 * `ids`, every one below `limit`, packed in place into their own buffer's first 3n + 1 bytes
 * (entry i's bytes land at 3i, before entry i + 1 is read at 4i + 4); as they are when an id
 * could reach 2^24. Either way the Uint32Array must not be read again.
 */
export function packIds(ids: Uint32Array, limit: number): IdArray {
  if (limit > PACKED_LIMIT) return ids;
  if (ids.length === 0) return new Uint8Array(1);
  const bytes = new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength);
  for (let i = 0, o = 0; i < ids.length; i++, o += 3) {
    const v = ids[i];
    bytes[o] = v;
    bytes[o + 1] = v >>> 8;
    bytes[o + 2] = v >>> 16;
  }
  bytes[ids.length * 3] = 0;
  return bytes.subarray(0, ids.length * 3 + 1);
}
