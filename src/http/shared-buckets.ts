// Token buckets in one SharedArrayBuffer, so that every front thread's RateLimiter spends from the
// same bucket for an address: a client whose connections land on several threads gets its limit
// once, not once per thread. The table is set-associative with fixed size (bounded memory like an
// LRU): an address hashes to 64 bits (two seeded FNV-1a, 0/0 marks an empty way) and to one set of
// WAYS ways; a full set gives up its least recently touched way.
//
// Each set has an Int32 spinlock (Atomics.compareExchange); the critical sections are a few dozen
// instructions of arithmetic that cannot throw, and the lock's Atomics order the plain reads and
// writes inside them. A thread
// killed inside a section (worker.terminate() at that instant) would leave its set locked and the
// other threads waiting on it for good: not handled, the front threads live as long as the process.

import { FNV_OFFSET, FNV_PRIME } from "../engine/fnv.js";

export const WAYS = 8;
export const DEFAULT_SLOTS = 262_144;

const SET_HEADER = 2; // Int32s per set: the lock, and the set's touch counter
const SLOT_U32 = 4; // Uint32s per slot: hash high, hash low, touched stamp, unused
const SLOT_F64 = 3; // Float64s per slot: tokens, at (ms), limit
const BYTES_PER_SET = SET_HEADER * 4 + WAYS * (SLOT_U32 * 4 + SLOT_F64 * 8);
const SPINS_BEFORE_NAP = 1024;

const SECOND_BASIS = 0x2f6a3c1d;

/** murmur3's finalizer: FNV's low bits vary little across similar addresses, the set index needs them mixed. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class SharedBuckets {
  /** A table of `slots` buckets (rounded up to a power of two sets of WAYS), shared by passing the buffer. */
  static create(slots = DEFAULT_SLOTS): SharedArrayBuffer {
    let sets = 1;
    while (sets * WAYS < slots) sets *= 2;
    return new SharedArrayBuffer(sets * BYTES_PER_SET);
  }

  readonly sets: number;
  private readonly mask: number;
  private readonly head: Int32Array;
  private readonly keys: Uint32Array;
  private readonly nums: Float64Array;
  /** the 64-bit key of the address being served, set by lock() */
  private h1 = 0;
  private h2 = 0;

  constructor(readonly buffer: SharedArrayBuffer) {
    const sets = buffer.byteLength / BYTES_PER_SET;
    if (!Number.isInteger(sets) || sets < 1 || (sets & (sets - 1)) !== 0) {
      throw new RangeError("not a SharedBuckets.create() buffer");
    }
    this.sets = sets;
    this.mask = sets - 1;
    // Float64s first: they need 8-byte alignment
    this.nums = new Float64Array(buffer, 0, sets * WAYS * SLOT_F64);
    this.keys = new Uint32Array(buffer, this.nums.byteLength, sets * WAYS * SLOT_U32);
    this.head = new Int32Array(buffer, this.nums.byteLength + this.keys.byteLength, sets * SET_HEADER);
  }

  get slots(): number {
    return this.sets * WAYS;
  }

  /**
   * Refills the address's bucket (a new one starts full; one filled for another limit gains or
   * loses the difference at once), then spends `cost` if it holds that much. Returns the balance
   * before the spending: the spending happened if and only if it is >= cost.
   */
  take(ip: string, limit: number, perMs: number, cost: number, now: number): number {
    const set = this.lock(ip);
    const n = this.find(set, limit, now) * SLOT_F64;
    const nums = this.nums;
    let tokens = nums[n];
    if (nums[n + 2] !== limit) {
      tokens = Math.max(0, tokens + limit - nums[n + 2]);
      nums[n + 2] = limit;
    }
    // another thread's clock may read a hair behind the one that stamped `at`: never refill backwards
    const at = nums[n + 1];
    if (now > at) {
      tokens = Math.min(limit, tokens + (now - at) * perMs);
      nums[n + 1] = now;
    }
    nums[n] = tokens >= cost ? tokens - cost : tokens;
    this.unlock(set);
    return tokens;
  }

  /** Takes `tokens` from the address's bucket, into debt if need be (a new bucket starts full at `limit`). */
  charge(ip: string, tokens: number, limit: number, now: number): void {
    const set = this.lock(ip);
    this.nums[this.find(set, limit, now) * SLOT_F64] -= tokens;
    this.unlock(set);
  }

  /** The address's balance as stored (no refill, not counted as a touch), or null if it has no bucket. */
  peek(ip: string): number | null {
    const set = this.lock(ip);
    const slot = this.lookup(set);
    const tokens = slot < 0 ? null : this.nums[slot * SLOT_F64];
    this.unlock(set);
    return tokens;
  }

  /** Hashes the address into h1/h2 and locks its set; returns the set. */
  private lock(ip: string): number {
    // FNV-1a of the char codes from two offset bases: two independent 32-bit hashes in one pass
    let h1 = FNV_OFFSET;
    let h2 = SECOND_BASIS;
    for (let i = 0; i < ip.length; i++) {
      const c = ip.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, FNV_PRIME);
      h2 = Math.imul(h2 ^ c, FNV_PRIME);
    }
    h1 >>>= 0;
    h2 >>>= 0;
    if (h1 === 0 && h2 === 0) h2 = 1;
    const set = mix(h1) & this.mask;
    const head = this.head;
    const at = set * SET_HEADER;
    for (let spins = 1; Atomics.compareExchange(head, at, 0, 1) !== 0; spins++) {
      // the holder may be descheduled (more threads than cores): let it run rather than burn its core
      if (spins % SPINS_BEFORE_NAP === 0) Atomics.wait(head, at, 1, 0.05);
    }
    this.h1 = h1;
    this.h2 = h2;
    return set;
  }

  private unlock(set: number): void {
    Atomics.store(this.head, set * SET_HEADER, 0);
  }

  /** The slot holding h1/h2 in the (locked) set, or -1. */
  private lookup(set: number): number {
    const keys = this.keys;
    const first = set * WAYS;
    for (let slot = first; slot < first + WAYS; slot++) {
      const k = slot * SLOT_U32;
      if (keys[k] === this.h1 && keys[k + 1] === this.h2) return slot;
    }
    return -1;
  }

  /** The slot of h1/h2 in the (locked) set; a new bucket, full at `limit`, in an empty or the least recently touched way. */
  private find(set: number, limit: number, now: number): number {
    const keys = this.keys;
    const found = this.lookup(set);
    if (found >= 0) {
      keys[found * SLOT_U32 + 2] = this.touch(set);
      return found;
    }
    const tick = this.head[set * SET_HEADER + 1];
    const first = set * WAYS;
    let victim = first;
    let oldest = -1;
    for (let slot = first; slot < first + WAYS; slot++) {
      const k = slot * SLOT_U32;
      if (keys[k] === 0 && keys[k + 1] === 0) {
        victim = slot;
        break;
      }
      // ages by unsigned difference: right across the counter's wrap
      const age = (tick - keys[k + 2]) >>> 0;
      if (age > oldest) {
        oldest = age;
        victim = slot;
      }
    }
    const k = victim * SLOT_U32;
    keys[k] = this.h1;
    keys[k + 1] = this.h2;
    keys[k + 2] = this.touch(set);
    const n = victim * SLOT_F64;
    this.nums[n] = limit;
    this.nums[n + 1] = now;
    this.nums[n + 2] = limit;
    return victim;
  }

  /** The set's next touch stamp (the set is locked: a plain increment will do). */
  private touch(set: number): number {
    const i = set * SET_HEADER + 1;
    return (this.head[i] = (this.head[i] + 1) | 0) >>> 0;
  }
}
