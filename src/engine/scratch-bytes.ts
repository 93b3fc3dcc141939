// Bytes the front reuses from one request to the next (a search's documents and page, a
// lookup's document, a keyed search's answer). A buffer per request is memory V8 counts as
// external, and external bytes allocated since the last full collection count against the old
// generation's limit: at 3,000 searches a second over 3.43M records, a buffer per search started
// a full collection of the front every 3–5 s, each a 5–15 ms pause. What a scratch holds is
// valid only until its next use, so whoever fills it hands it on, and the taker is done with it
// before returning: no await in between.

const INITIAL_BYTES = 64 * 1024;

export class ScratchBytes {
  private bytes = Buffer.allocUnsafeSlow(INITIAL_BYTES);

  /** At least `size` bytes, their contents undefined; earlier views of the scratch are void. */
  take(size: number): Buffer {
    if (size > this.bytes.length) this.bytes = Buffer.allocUnsafeSlow(Math.max(size, this.bytes.length * 2));
    return this.bytes;
  }

  /** The parts one after another (strings as UTF-8), as a view of the scratch. */
  join(parts: readonly (string | Uint8Array)[]): Buffer {
    let size = 0;
    for (const part of parts) size += typeof part === "string" ? Buffer.byteLength(part) : part.length;
    const out = this.take(size);
    let at = 0;
    for (const part of parts) {
      if (typeof part === "string") {
        at += out.write(part, at);
      } else {
        out.set(part, at);
        at += part.length;
      }
    }
    return out.subarray(0, at);
  }
}
