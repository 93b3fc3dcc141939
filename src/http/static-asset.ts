// A file served from memory: its bytes and their gzip, compressed once when it is loaded.

import { gzipSync } from "node:zlib";

export interface StaticAsset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
}

export function staticAsset(body: string | Buffer, type: string): StaticAsset {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return { body: bytes, gzipped: gzipSync(bytes, { level: 9 }), type };
}
