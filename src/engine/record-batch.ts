// Records between the loader and a shard's builder, as bytes. Each value is the UTF-8 of its CSV
// field, copied from the file's buffer: the loader never decodes a field into a string, and the
// builder reads most values (ASCII names, addresses, codes) without making one either. At full
// scale that is 3.4M records × ~20 values a load, on two busy cores.
//
// Layout, little endian: u32 record count; then per record a u8 value count, then each value as
// a u32 byte length and its bytes. Values come in ENTITY_FIELDS order, then the other names; an
// absent value has length 0.

import { ENTITY_FIELDS } from "./schema.js";

/** values every record has: one per LegalEntity field; other names follow */
export const ENTITY_VALUES = ENTITY_FIELDS.length;
const MAX_VALUES = 255;
const QUOTE = 0x22;

export class RecordBatchWriter {
  private bytes = Buffer.allocUnsafe(1 << 16);
  private used = 4;
  private countAt = -1;
  private readonly valueStarts = new Uint32Array(MAX_VALUES);
  private values = 0;
  records = 0;

  /** bytes held so far */
  get size(): number {
    return this.used;
  }

  beginRecord(): void {
    this.countAt = this.used;
    this.room(1);
    this.bytes[this.used++] = 0;
    this.values = 0;
    this.records++;
  }

  /** Appends src[start, end) as the record's next value; `escaped`: a quoted CSV field's `""` become `"`. */
  value(src: Uint8Array, start: number, end: number, escaped = false): void {
    const count = this.values;
    if (count >= MAX_VALUES) throw new Error(`a record has more than ${MAX_VALUES} values`);
    this.room(4 + end - start);
    const lengthAt = this.used;
    let at = lengthAt + 4;
    const bytes = this.bytes;
    if (!escaped) {
      // values are a few dozen bytes: a loop beats subarray() + set(), which make a view each
      for (let i = start; i < end; i++) bytes[at++] = src[i];
    } else {
      for (let i = start; i < end; i++) {
        bytes[at++] = src[i];
        if (src[i] === QUOTE && i + 1 < end && src[i + 1] === QUOTE) i++;
      }
    }
    putU32(bytes, lengthAt, at - lengthAt - 4);
    this.valueStarts[count] = lengthAt;
    this.values = count + 1;
    this.used = at;
    bytes[this.countAt] = count + 1;
  }

  /** Appends an absent value. */
  empty(): void {
    this.value(this.bytes, 0, 0);
  }

  /** Whether the record's values a and b hold the same bytes. */
  sameValues(a: number, b: number): boolean {
    const at = this.valueStarts[a],
      bt = this.valueStarts[b];
    const length = getU32(this.bytes, at);
    if (length !== getU32(this.bytes, bt)) return false;
    return this.bytes.compare(this.bytes, bt + 4, bt + 4 + length, at + 4, at + 4 + length) === 0;
  }

  /** Makes the record's last value absent. */
  emptyLast(): void {
    const at = this.valueStarts[this.values - 1];
    putU32(this.bytes, at, 0);
    this.used = at + 4;
  }

  /** The batch in a buffer of its own, safe to transfer; the writer starts over. */
  finish(): Uint8Array {
    this.bytes.writeUInt32LE(this.records, 0);
    const out = new Uint8Array(this.used);
    out.set(this.bytes.subarray(0, this.used));
    this.used = 4;
    this.records = 0;
    return out;
  }

  private room(n: number): void {
    if (this.used + n <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.used + n, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
  }
}

/** Walks a batch a record at a time: value v of the current record lies at [start[v], end[v]) of `bytes`. */
export class RecordBatchReader {
  readonly bytes: Buffer;
  readonly start = new Uint32Array(MAX_VALUES);
  readonly end = new Uint32Array(MAX_VALUES);
  /** values of the current record */
  values = 0;
  private at = 4;
  private left: number;

  constructor(batch: Uint8Array) {
    this.bytes = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
    this.left = this.bytes.readUInt32LE(0);
  }

  /** Moves to the next record; false when there is none. */
  next(): boolean {
    if (this.left === 0) return false;
    this.left--;
    const bytes = this.bytes;
    let at = this.at;
    const values = bytes[at++];
    if (values < ENTITY_VALUES) throw new Error(`a record has ${values} values, fewer than ${ENTITY_VALUES}`);
    for (let v = 0; v < values; v++) {
      const length = getU32(bytes, at);
      this.start[v] = at + 4;
      at += 4 + length;
      this.end[v] = at;
    }
    if (at > bytes.length) throw new Error("record batch is truncated");
    this.values = values;
    this.at = at;
    return true;
  }

  /** Value v as text (null when absent): for the rarer values that are not read as bytes. */
  text(v: number): string | null {
    return this.end[v] === this.start[v] ? null : this.bytes.toString("utf8", this.start[v], this.end[v]);
  }
}

// Buffer's readUInt32LE and writeUInt32LE check their arguments on every call; these run
// twenty times a record on both sides.
function putU32(bytes: Uint8Array, at: number, v: number): void {
  bytes[at] = v;
  bytes[at + 1] = v >>> 8;
  bytes[at + 2] = v >>> 16;
  bytes[at + 3] = v >>> 24;
}
function getU32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}
