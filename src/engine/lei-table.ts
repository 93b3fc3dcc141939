// A slice's docs by LEI, read where the slice's engine keeps them: in its WASM memory, which is
// shared between threads. A slice's docs are in LEI order, term d < docs of its dictionary is
// doc d's LEI (lower case, behind a marker byte), and doc d's stored JSON lies at docStart[d],
// docLen[d] of its document file. None of that changes once the slice is served, so the front
// answers a lookup from it on its own thread (a lookup is the hottest route, and a round trip to
// the shard worker cost more CPU than the rest of it together), and the shard reads its hits'
// LEIs and documents through the same table.
//
// An LEI is found through a hash index beside the table, built by the slice's worker when it
// serves the slice (buildLeiIndex): a binary search over a million LEIs visited about 40 places
// in memory, each a likely cache miss, where the index visits 3 or 4.

import { Turns } from "../os/event-loop-turns.js";
import { fnv1a, fnv1aOfAscii } from "./fnv.js";
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
  /** bytes a docStart entry takes: 4 (a u32) while the document file is under 4 GiB, else 8 (an f64) */
  docStartBytes: 4 | 8;
  docLenAt: number;
  /** the hash index: `indexSlots` u32 slots, each a doc + 1 or 0 when empty */
  indexAt: number;
  indexSlots: number;
}

/** Where buildLeiIndex() put the index, to complete a LeiTableShare. */
export type LeiIndexPlace = Pick<LeiTableShare, "indexAt" | "indexSlots">;

/**
 * Slots per LEI: the index is two thirds full, where linear probing finds an LEI in about 2
 * probes and misses one in about 5 (each probe past the first a cache miss or two, beside a
 * lookup's 30 µs), at 4 bytes a slot:
 * 21 MB at 3.43M, where a power of two above twice the docs took 32 MiB.
 */
const SLOTS_PER_DOC = 1.5;

/**
 * Builds the hash index of a slice's LEI table (open addressing, linear probing) in memory that
 * `alloc` gives out of the engine's; `memory()` is that memory once it has grown to hold it.
 */
export function buildLeiIndex(
  table: Pick<LeiTableShare, "docs" | "termBytesAt" | "termOffsAt">,
  alloc: (bytes: number) => number,
  memoryNow: () => SharedArrayBuffer,
): LeiIndexPlace {
  const indexSlots = Math.max(16, Math.ceil(table.docs * SLOTS_PER_DOC));
  const indexAt = alloc(indexSlots * 4);
  const memory = memoryNow();
  const slots = new Uint32Array(memory, indexAt, indexSlots);
  slots.fill(0);
  const bytes = new Uint8Array(memory);
  const termOffs = new Uint32Array(memory, table.termOffsAt, table.docs + 1);
  for (let d = 0; d < table.docs; d++) {
    let i = home(fnv1a(bytes, leiStart(table.termBytesAt, termOffs, d), LEI_LENGTH), indexSlots);
    while (slots[i] !== 0) i = next(i, indexSlots);
    slots[i] = d + 1;
  }
  return { indexAt, indexSlots };
}

/** Where doc d's LEI (lower case) starts in the table's term bytes, past the term's marker byte. */
function leiStart(termBytesAt: number, termOffs: Uint32Array, d: number): number {
  return termBytesAt + termOffs[d] + 1;
}

/**
 * The slot an LEI's probe starts at: its FNV hash spread, then its top 24 bits scaled to the
 * slots (exact in doubles up to 2^29 slots).
 */
function home(fnv: number, slots: number): number {
  return Math.floor(((mixed(fnv) >>> 8) * slots) / 16_777_216);
}

/** The slot after i, wrapping. */
function next(i: number, slots: number): number {
  return i + 1 === slots ? 0 : i + 1;
}

/**
 * Spreads a hash's bits (murmur3's finaliser): the slices partition LEIs by FNV (partition.ts),
 * so within a slice plain FNV values share their low bits.
 */
function mixed(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class LeiTable {
  private readonly bytes: Uint8Array;
  private readonly termBytesAt: number;
  private readonly termOffs: Uint32Array;
  private readonly docStart: Float64Array | Uint32Array;
  private readonly docLen: Uint32Array;
  private readonly slots: Uint32Array;

  constructor(share: LeiTableShare) {
    this.bytes = new Uint8Array(share.memory);
    this.termBytesAt = share.termBytesAt;
    this.termOffs = new Uint32Array(share.memory, share.termOffsAt, share.docs + 1);
    this.docStart =
      share.docStartBytes === 4
        ? new Uint32Array(share.memory, share.docStartAt, share.docs)
        : new Float64Array(share.memory, share.docStartAt, share.docs);
    this.docLen = new Uint32Array(share.memory, share.docLenAt, share.docs);
    this.slots = new Uint32Array(share.memory, share.indexAt, share.indexSlots);
  }

  /** Where the stored document of an LEI (upper case) lies, through the hash index. */
  find(lei: string): DocRef | null {
    const d = this.docOf(lei);
    return d < 0 ? null : { at: this.docStart[d], length: this.docLen[d] };
  }

  /** The doc id of an LEI (upper case), or -1. */
  docOf(lei: string): number {
    if (lei.length !== LEI_LENGTH) return -1;
    const wanted = lei.toLowerCase();
    const n = this.slots.length;
    for (let i = home(fnv1aOfAscii(wanted), n); this.slots[i] !== 0; i = next(i, n)) {
      const d = this.slots[i] - 1;
      if (this.isLei(d, wanted)) return d;
    }
    return -1;
  }

  /** Where doc d's stored JSON starts in the document file, and its length. */
  docAt(d: number): number {
    return this.docStart[d];
  }
  docLength(d: number): number {
    return this.docLen[d];
  }

  /**
   * Reads, for each hit (doc, score high, score low: a slice's hit words), what docAt, docLength
   * and copyLei will: a hit's are a few cache misses, and read hit by hit they come one after
   * another, where in one pass over the hits they overlap. Returns a sum of what it read.
   */
  warm(hitWords: Uint32Array): number {
    let sum = 0;
    for (let i = 0; i < hitWords.length; i += 3) {
      const d = hitWords[i];
      sum += this.docStart[d] + this.docLen[d] + this.bytes[this.leiAt(d)];
    }
    return sum;
  }

  /** Doc d's LEI, upper case, into `into` at `at`: twenty bytes, no string. */
  copyLei(d: number, into: Uint8Array, at: number): void {
    const from = this.leiAt(d);
    for (let i = 0; i < LEI_LENGTH; i++) into[at + i] = upperAscii(this.bytes[from + i]);
  }

  /** Every doc's LEI, upper case, in doc order, letting the event loop have turns meanwhile. */
  async all(): Promise<string[]> {
    const out: string[] = new Array(this.docLen.length);
    const lei = Buffer.allocUnsafe(LEI_LENGTH);
    const turns = new Turns();
    for (let d = 0; d < out.length; d++) {
      const pause = turns.pause();
      if (pause !== undefined) await pause;
      this.copyLei(d, lei, 0);
      out[d] = lei.toString("latin1");
    }
    return out;
  }

  private leiAt(d: number): number {
    return leiStart(this.termBytesAt, this.termOffs, d);
  }

  /** Whether doc d's LEI is `lei` (lower case), byte by byte. */
  private isLei(d: number, lei: string): boolean {
    const at = this.leiAt(d);
    for (let i = 0; i < LEI_LENGTH; i++) if (this.bytes[at + i] !== lei.charCodeAt(i)) return false;
    return true;
  }
}
