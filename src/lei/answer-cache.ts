// Serialised search answers kept for repeats of the same request, in memory the garbage
// collector never sees: every answer lives in one ring of bytes allocated up front, found
// through a set-associative index held in typed arrays. A cache of one Buffer per answer in a
// Map promoted every answer to the old generation and counted its bytes as external memory, so
// under thousands of distinct searches a second the front ran a full collection every 2 s.
//
// The ring's bytes go first in, first out: a hit on an answer in the ring's older half writes it
// again at the head (a second chance). An index set that is full gives up its least recently
// used slot. So answers asked for often stay, whichever of the two runs out first.
//
// Record in the ring: u32 key length, u32 answer length, key bytes (UTF-8), answer bytes.
// Records never straddle a chunk's end: the writer skips to the next chunk instead.

import { fnv1a } from "../engine/fnv.js";

const WAYS = 8;
const RECORD_HEADER = 8;
/** Answers larger than this share of the ring are not kept: one would evict too many others. */
const MAX_SHARE = 8;
const MAX_CHUNK = 1 << 30;
const MAX_KEY_BYTES = 16 * 1024;

export class AnswerCache {
  private readonly chunks: Buffer[];
  private readonly chunkSize: number;
  private readonly capacity: number;
  /** absolute bytes written so far; a record at absolute position p is intact while head - p <= capacity */
  private head = 0;
  private readonly mask: number;
  /** per slot: the key's hash (0: empty), its record's absolute position, and when it was last used */
  private readonly hashes: Uint32Array;
  private readonly positions: Float64Array;
  private readonly used: Float64Array;
  private tick = 0;
  private readonly keyScratch = Buffer.allocUnsafeSlow(MAX_KEY_BYTES);

  /** `chunkBytes`: the largest single buffer (a Buffer stops at a few GB; tests pass small ones). */
  constructor(bytes: number, chunkBytes = MAX_CHUNK) {
    this.chunkSize = Math.min(bytes, chunkBytes);
    const count = Math.max(1, Math.floor(bytes / this.chunkSize));
    this.capacity = count * this.chunkSize;
    this.chunks = Array.from({ length: count }, () => Buffer.allocUnsafeSlow(this.chunkSize));
    // about one slot per KB of ring (a page of hits is several KB), a power of two, at least one set
    const slots = Math.max(WAYS, 2 ** Math.ceil(Math.log2(Math.max(1, this.capacity / 1024))));
    this.mask = slots - WAYS;
    this.hashes = new Uint32Array(slots);
    this.positions = new Float64Array(slots);
    this.used = new Float64Array(slots);
  }

  /** A copy of the answer stored under key, or null. */
  get(key: string): Buffer | null {
    const answer = this.peek(key);
    return answer && Buffer.from(answer);
  }

  /**
   * The answer stored under key, as a view into the ring, or null. Valid until the cache is next
   * written (a set, or the second chance of a get or peek): read it before anything else runs.
   */
  peek(key: string): Buffer | null {
    const keyLength = this.encodeKey(key);
    if (keyLength < 0) return null;
    const hash = hashOf(this.keyScratch, keyLength);
    const set = hash & this.mask;
    for (let slot = set; slot < set + WAYS; slot++) {
      if (this.hashes[slot] !== hash) continue;
      const at = this.positions[slot];
      if (!this.intact(at) || !this.keyAt(at, keyLength)) continue;
      this.used[slot] = ++this.tick;
      if (this.head - at > this.capacity / 2) this.write(slot, hash, keyLength, this.answerAt(at, keyLength));
      return this.answerAt(this.positions[slot], keyLength);
    }
    return null;
  }

  private answerAt(at: number, keyLength: number): Buffer {
    const chunk = this.chunkOf(at),
      offset = at % this.chunkSize;
    const start = offset + RECORD_HEADER + keyLength;
    return chunk.subarray(start, start + chunk.readUInt32LE(offset + 4));
  }

  set(key: string, answer: Uint8Array): void {
    const keyLength = this.encodeKey(key);
    if (keyLength < 0 || RECORD_HEADER + keyLength + answer.length > this.chunkSize / MAX_SHARE) return;
    const hash = hashOf(this.keyScratch, keyLength);
    const set = hash & this.mask;
    // the key's own slot if it has one, else a free one (empty or overwritten), else the set's least recently used
    let free = -1,
      stalest = set;
    for (let slot = set; slot < set + WAYS; slot++) {
      const at = this.positions[slot];
      const live = this.hashes[slot] !== 0 && this.intact(at);
      if (live && this.hashes[slot] === hash && this.keyAt(at, keyLength)) {
        free = slot;
        break;
      }
      if (!live && free < 0) free = slot;
      if (this.used[slot] < this.used[stalest]) stalest = slot;
    }
    const slot = free >= 0 ? free : stalest;
    this.used[slot] = ++this.tick;
    this.write(slot, hash, keyLength, answer);
  }

  /** Appends the record (key from keyScratch) at the head and points the slot at it. */
  private write(slot: number, hash: number, keyLength: number, answer: Uint8Array): void {
    const size = RECORD_HEADER + keyLength + answer.length;
    if ((this.head % this.chunkSize) + size > this.chunkSize) this.head += this.chunkSize - (this.head % this.chunkSize);
    const at = this.head;
    const chunk = this.chunkOf(at),
      offset = at % this.chunkSize;
    chunk.writeUInt32LE(keyLength, offset);
    chunk.writeUInt32LE(answer.length, offset + 4);
    this.keyScratch.copy(chunk, offset + RECORD_HEADER, 0, keyLength);
    chunk.set(answer, offset + RECORD_HEADER + keyLength);
    this.head += size;
    this.hashes[slot] = hash;
    this.positions[slot] = at;
  }

  private intact(at: number): boolean {
    return this.head - at <= this.capacity;
  }

  /** The chunk holding absolute position `at`; its offset there is at % chunkSize (the ring is whole chunks). */
  private chunkOf(at: number): Buffer {
    return this.chunks[Math.floor((at % this.capacity) / this.chunkSize)];
  }

  /** Whether the record at `at` has the key in keyScratch. */
  private keyAt(at: number, keyLength: number): boolean {
    const chunk = this.chunkOf(at),
      offset = at % this.chunkSize;
    if (chunk.readUInt32LE(offset) !== keyLength) return false;
    return chunk.compare(this.keyScratch, 0, keyLength, offset + RECORD_HEADER, offset + RECORD_HEADER + keyLength) === 0;
  }

  /** The key's UTF-8 length in keyScratch, or -1 when too long to keep. */
  private encodeKey(key: string): number {
    if (key.length * 3 > MAX_KEY_BYTES) return -1;
    return this.keyScratch.write(key, 0, "utf8");
  }
}

/** The key's hash, never 0 (0 marks an empty slot). */
const hashOf = (bytes: Uint8Array, length: number): number => fnv1a(bytes, 0, length) || 1;
