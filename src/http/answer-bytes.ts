// An answer written piece by piece into one buffer that grows as it fills: a bulk answer built
// over many turns (front-work.ts) keeps its rows as bytes, not as a buffer or an object per row,
// so what a row made dies young and the front's old generation does not fill with answers.

export class AnswerBytes {
  private bytes: Buffer;
  private used = 0;

  /** `expected`: about how many bytes the answer will take */
  constructor(expected = 16 * 1024) {
    this.bytes = Buffer.allocUnsafe(Math.max(1024, expected));
  }

  /** Appends `text` as UTF-8. */
  text(text: string): this {
    this.room(text.length * 3); // a UTF-16 unit is at most 3 bytes of UTF-8
    this.used += this.bytes.write(text, this.used);
    return this;
  }

  /** Appends `bytes` (copied: they may be scratch memory the next lookup reuses). */
  append(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.bytes.set(bytes, this.used);
    this.used += bytes.length;
    return this;
  }

  /** Forgets what was written. */
  clear(): void {
    this.used = 0;
  }

  /** What was written, as a view of the buffer. */
  view(): Buffer {
    return this.bytes.subarray(0, this.used);
  }

  private room(more: number): void {
    if (this.used + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.used + more, this.bytes.length * 2));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}
