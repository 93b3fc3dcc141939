// Latency histogram in microseconds with log-linear buckets (HdrHistogram-style,
// 64 sub-buckets per power of two: under 1.6 % relative error), small enough to
// send between processes and to merge.

const SUB_BITS = 6;
const SUB = 1 << SUB_BITS;
const BUCKETS = 2 * SUB + 26 * SUB;

function bucketOf(us: number): number {
  let v = Math.round(us);
  if (v < 0) v = 0;
  if (v > 0x7fffffff) v = 0x7fffffff;
  if (v < 2 * SUB) return v;
  const msb = 31 - Math.clz32(v);
  const shift = msb - SUB_BITS;
  return 2 * SUB + (shift - 1) * SUB + ((v >>> shift) - SUB);
}

/** Midpoint of a bucket's value range. */
function valueOf(bucket: number): number {
  if (bucket < 2 * SUB) return bucket;
  const shift = Math.floor((bucket - 2 * SUB) / SUB) + 1;
  const sub = (bucket - 2 * SUB) % SUB;
  const low = (SUB + sub) * 2 ** shift;
  return low + 2 ** shift / 2;
}

export interface LatencySummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

export class Histogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;
  private sum = 0;
  private max = 0;

  record(us: number): void {
    this.counts[bucketOf(us)]!++;
    this.total++;
    this.sum += us;
    if (us > this.max) this.max = us;
  }

  reset(): void {
    this.counts.fill(0);
    this.total = 0;
    this.sum = 0;
    this.max = 0;
  }

  get count(): number {
    return this.total;
  }

  percentileUs(p: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= rank) return Math.min(valueOf(b), this.max);
    }
    return this.max;
  }

  summary(): LatencySummary {
    const ms = (us: number): number => Math.round(us) / 1000;
    return {
      count: this.total,
      meanMs: this.total === 0 ? 0 : ms(this.sum / this.total),
      p50Ms: ms(this.percentileUs(50)),
      p90Ms: ms(this.percentileUs(90)),
      p99Ms: ms(this.percentileUs(99)),
      p999Ms: ms(this.percentileUs(99.9)),
      maxMs: ms(this.max),
    };
  }
}
