// The builder's term dictionary: each distinct term once, as UTF-8 bytes in one arena, found by
// an open-addressing hash table of term ids. A JavaScript Map of strings did the same job at
// about 100 bytes a term (the string, its entry, the table's spare capacity, and a second table
// while it doubles); this holds a term in its bytes plus about 12. At full scale a slice has over
// a million terms, and the build of the next collection runs beside the live one.

import { grown } from "./chunked-array.js";
import { fnv1a } from "./fnv.js";

const EMPTY = 0; // a slot holds id + 1

export class TermTable {
  private bytes: Uint8Array;
  private used = 0;
  /** term id -> start of its bytes; the next term's start is its end */
  private starts: Uint32Array;
  private slots: Uint32Array;
  private count = 0;
  private scratch = Buffer.allocUnsafe(256);

  /** `slots`: the table's first size, a power of two; it doubles as terms come */
  constructor(slots = 1 << 16) {
    this.bytes = new Uint8Array(slots * 16);
    this.starts = new Uint32Array(slots);
    this.slots = new Uint32Array(slots);
  }

  get size(): number {
    return this.count;
  }
  /** the UTF-8 bytes of every term together */
  get byteLength(): number {
    return this.used;
  }

  /** The id of term, added if new. Ids count up from 0 in order of first sight. */
  idOf(term: string): number {
    return this.idOfBytes(this.scratch, 0, this.encode(term));
  }

  /** The id of the term whose UTF-8 is bytes[start, start + len), added if new. */
  idOfBytes(bytes: Uint8Array, start: number, len: number): number {
    const mask = this.slots.length - 1;
    let slot = fnv1a(bytes, start, len) & mask;
    for (let held = this.slots[slot]; held !== EMPTY; held = this.slots[slot]) {
      if (this.equals(held - 1, bytes, start, len)) return held - 1;
      slot = (slot + 1) & mask;
    }
    const id = this.append(bytes, start, len);
    this.slots[slot] = id + 1;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return id;
  }

  /** The id of term `id`'s bytes behind a marker byte, added if new. */
  markedIdOf(marker: number, id: number): number {
    const bytes = this.bytesOf(id);
    if (bytes.length + 1 > this.scratch.length) this.scratch = Buffer.allocUnsafe(bytes.length * 2 + 1);
    this.scratch[0] = marker;
    this.scratch.set(bytes, 1);
    return this.idOfBytes(this.scratch, 0, bytes.length + 1);
  }

  /** Term ids in byte order (which is code point order), as the engine compares terms. */
  sortedIds(): Uint32Array {
    const ids = new Uint32Array(this.count);
    // each term's first four bytes as one number settle most comparisons without reading the
    // arena (terms hold no zero byte, so a shorter term's zero padding sorts it first)
    const prefix = new Uint32Array(this.count);
    for (let i = 0; i < this.count; i++) {
      ids[i] = i;
      const start = this.starts[i],
        end = this.end(i);
      let p = 0;
      for (let k = 0; k < 4; k++) p = p * 256 + (start + k < end ? this.bytes[start + k] : 0);
      prefix[i] = p;
    }
    return ids.sort((a, b) => prefix[a] - prefix[b] || this.compare(a, b));
  }

  /** The UTF-8 bytes of term id: a view, valid until the next idOf. */
  bytesOf(id: number): Uint8Array {
    return this.bytes.subarray(this.starts[id], this.end(id));
  }

  /** Lets the memory go: the builder is done with its terms. */
  release(): void {
    this.bytes = new Uint8Array(0);
    this.starts = new Uint32Array(0);
    this.slots = new Uint32Array(1);
    this.count = 0;
    this.used = 0;
  }

  private end(id: number): number {
    return id + 1 < this.count ? this.starts[id + 1] : this.used;
  }

  /** term's UTF-8 into scratch (grown when a term is longer than any before); its length */
  private encode(term: string): number {
    if (term.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(term.length * 3);
    return this.scratch.write(term, 0);
  }

  private equals(id: number, key: Uint8Array, from: number, len: number): boolean {
    const start = this.starts[id];
    if (this.end(id) - start !== len) return false;
    for (let i = 0; i < len; i++) if (this.bytes[start + i] !== key[from + i]) return false;
    return true;
  }

  private compare(a: number, b: number): number {
    const aStart = this.starts[a],
      aLen = this.end(a) - aStart;
    const bStart = this.starts[b],
      bLen = this.end(b) - bStart;
    const n = Math.min(aLen, bLen);
    for (let i = 0; i < n; i++) {
      const diff = this.bytes[aStart + i] - this.bytes[bStart + i];
      if (diff !== 0) return diff;
    }
    return aLen - bLen;
  }

  private append(key: Uint8Array, from: number, len: number): number {
    if (this.used + len > this.bytes.length) this.bytes = grown(this.bytes, this.used + len);
    if (this.count + 1 > this.starts.length) this.starts = grown(this.starts, this.count + 1);
    this.bytes.set(key.subarray(from, from + len), this.used);
    this.starts[this.count] = this.used;
    this.used += len;
    return this.count++;
  }

  private rehash(capacity: number): void {
    const slots = new Uint32Array(capacity);
    const mask = capacity - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = fnv1a(this.bytes, this.starts[id], this.end(id) - this.starts[id]) & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}
