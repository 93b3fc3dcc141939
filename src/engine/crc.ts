// A running CRC-32 over pieces, empty pieces included. zlib's crc32() answers 0 for a view with no
// memory behind it (a zero-length typed array's), which reset the running checksum: an empty
// array written from the builder's own arrays and read back into WASM memory summed differently,
// so every segment of an empty slice failed its checksum.

import { crc32 } from "node:zlib";

export function crc32Update(bytes: Uint8Array, crc: number): number {
  return bytes.byteLength === 0 ? crc : crc32(bytes, crc);
}
