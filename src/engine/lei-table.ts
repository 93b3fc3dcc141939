// A slice's docs by LEI, read where the slice's engine keeps them: in its WASM memory, which is
// shared between threads. A slice's docs are in LEI order, term d < docs of its dictionary is
// doc d's LEI (lower case, behind a marker byte), and doc d's stored JSON lies at docStart[d],
// docLen[d] of its document file. None of that changes once the slice is served, so the front
// answers a lookup from it on its own thread (a lookup is the hottest route, and a round trip to
// the shard worker cost more CPU than the rest of it together), and the shard reads its hits'
// LEIs and documents through the same table.

import type { DocRef } from "./protocol.js";
import { upperAscii } from "./text.js";

const LEI_LENGTH = 20;

/** Where a served slice's LEI table lies in its engine's shared memory: what its worker hands the front. */
export interface LeiTableShare {
  memory: SharedArrayBuffer;
  docs: number;
  termBytesAt: number;
  termOffsAt: number;
  docStartAt: number;
  docLenAt: number;
}

export class LeiTable {
  private readonly docs: number;
  private readonly bytes: Uint8Array;
  private readonly termBytesAt: number;
  private readonly termOffs: Uint32Array;
  private readonly docStart: Float64Array;
  private readonly docLen: Uint32Array;

  constructor(share: LeiTableShare) {
    this.docs = share.docs;
    this.bytes = new Uint8Array(share.memory);
    this.termBytesAt = share.termBytesAt;
    this.termOffs = new Uint32Array(share.memory, share.termOffsAt, share.docs + 1);
    this.docStart = new Float64Array(share.memory, share.docStartAt, share.docs);
    this.docLen = new Uint32Array(share.memory, share.docLenAt, share.docs);
  }

  /** Where the stored document of an LEI (upper case) lies: a binary search over the LEI-ordered docs. */
  find(lei: string): DocRef | null {
    if (lei.length !== LEI_LENGTH) return null;
    const wanted = lei.toLowerCase();
    let lo = 0,
      hi = this.docs;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(mid, wanted) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.docs && this.compare(lo, wanted) === 0 ? { at: this.docStart[lo], length: this.docLen[lo] } : null;
  }

  /** Where doc d's stored JSON starts in the document file, and its length. */
  docAt(d: number): number {
    return this.docStart[d];
  }
  docLength(d: number): number {
    return this.docLen[d];
  }

  /** Doc d's LEI, upper case, into `into` at `at`: twenty bytes, no string. */
  copyLei(d: number, into: Uint8Array, at: number): void {
    const from = this.leiAt(d);
    for (let i = 0; i < LEI_LENGTH; i++) into[at + i] = upperAscii(this.bytes[from + i]);
  }

  /** Where doc d's LEI (lower case) starts, past the term's marker byte. */
  private leiAt(d: number): number {
    return this.termBytesAt + this.termOffs[d] + 1;
  }

  /** Doc d's LEI against `lei` (lower case), byte by byte. */
  private compare(d: number, lei: string): number {
    const at = this.leiAt(d);
    for (let i = 0; i < LEI_LENGTH; i++) {
      const diff = this.bytes[at + i] - lei.charCodeAt(i);
      if (diff !== 0) return diff;
    }
    return 0;
  }
}
