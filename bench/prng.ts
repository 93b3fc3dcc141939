// Seeded pseudo-random numbers for the generator and the query sets.
// sfc32 (PractRand-clean, 128-bit state, 32-bit ops only) keeps generation fast in
// V8 while staying reproducible across machines; splitmix32 turns (seed, stream,
// index) into independent states so record i can be rebuilt without replaying
// records 0..i-1.

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
    // Discard the first outputs: the state right after seeding is poorly mixed.
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A generator for one (seed, stream, index) triple; equal inputs give equal sequences. */
  static at(seed: number, stream: number, index: number): Rng {
    let s = mix32((seed | 0) ^ 0x9e3779b9) ^ mix32((stream | 0) + 0x632be5ab) ^ Math.imul(index | 0, 0x85ebca6b);
    // High bits of indexes above 2^32 never occur (records < 2^32), so index | 0 is enough.
    s = mix32(s + (Math.floor(index / 4294967296) | 0));
    const a = (s = mix32(s + 0x9e3779b9));
    const b = (s = mix32(s + 0x9e3779b9));
    const c = (s = mix32(s + 0x9e3779b9));
    const d = mix32(s + 0x9e3779b9);
    return new Rng(a, b, c, d);
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** splitmix32-style finaliser: a bijection on 32-bit integers with good avalanche. */
export function mix32(x: number): number {
  x = x | 0;
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

/** Stable 32-bit hash of a string, used to derive seeds from names. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/**
 * Weighted choice table, built once: picking is a binary search over cumulative
 * weights, so tables of a few hundred entries stay cheap per record.
 */
export class Weighted<T> {
  private readonly items: T[];
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(entries: ReadonlyArray<readonly [T, number]>) {
    if (entries.length === 0) throw new Error("Weighted: empty table");
    this.items = entries.map((e) => e[0]);
    this.cumulative = new Float64Array(entries.length);
    let sum = 0;
    entries.forEach((e, i) => {
      if (!(e[1] >= 0)) throw new Error(`Weighted: bad weight ${e[1]}`);
      sum += e[1];
      this.cumulative[i] = sum;
    });
    if (sum <= 0) throw new Error("Weighted: weights sum to zero");
    this.total = sum;
  }

  pick(rng: Rng): T {
    const x = rng.float() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
}
