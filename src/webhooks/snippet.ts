// The response snippet kept in the delivery log: at most SNIPPET_BYTES bytes of UTF-8, cut on a
// character boundary. Bytes that are not UTF-8 decode to U+FFFD (3 bytes each), so the cap is
// applied to the text as stored, not to the bytes as received.

export const SNIPPET_BYTES = 1024;

/** The longest prefix of `received` whose UTF-8 text is at most `maxBytes` bytes. */
export function utf8Snippet(received: Uint8Array, maxBytes: number = SNIPPET_BYTES): string {
  let end = Math.min(received.length, maxBytes);
  // a character cut by the byte cap is left out rather than turned into U+FFFD
  if (end < received.length && (received[end] & 0xc0) === 0x80) {
    let back = end - 1;
    while (back > 0 && back > end - 4 && (received[back] & 0xc0) === 0x80) back--;
    if ((received[back] & 0xc0) === 0xc0) end = back;
  }
  const text = Buffer.from(received.buffer, received.byteOffset, end).toString("utf8");
  const stored = Buffer.from(text, "utf8");
  if (stored.length <= maxBytes) return text;
  let cut = maxBytes;
  while (cut > 0 && (stored[cut] & 0xc0) === 0x80) cut--;
  return stored.subarray(0, cut).toString("utf8");
}
