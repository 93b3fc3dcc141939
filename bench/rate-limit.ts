// RateLimiter.take() per call, builds alternating: 1M takes round-robin over 10k addresses, each
// round on a fresh limiter (its table allocated by the first take), median over the rounds.
//
//   node dist/bench/rate-limit.js [--builds old=/work/main,new=.] [--rounds R] [--takes N] [--ips N]

import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Args, buildList } from "./args.js";

interface Limiter {
  take(ip: string, weight?: number): { allowed: boolean };
}
type LimiterClass = new (limit: number, windowSeconds: number) => Limiter;

const args = new Args(process.argv.slice(2));
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const rounds = args.int("rounds", 9);
const takes = args.int("takes", 1_000_000);
const ipCount = args.int("ips", 10_000);
const ips = Array.from({ length: ipCount }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);

const builds = await Promise.all(
  buildList(args, repo).map(async (b) => {
    const url = pathToFileURL(path.join(b.dir, "dist/src/http/rate-limit.js")).href;
    const { RateLimiter } = (await import(url)) as { RateLimiter: LimiterClass };
    return { label: b.label, RateLimiter, ns: [] as number[] };
  }),
);

for (let round = 0; round < rounds; round++) {
  for (const b of builds) {
    const limiter = new b.RateLimiter(takes, 60);
    const t0 = performance.now();
    for (let i = 0; i < takes; i++) limiter.take(ips[i % ipCount]!);
    b.ns.push(((performance.now() - t0) * 1e6) / takes);
  }
}
for (const b of builds) {
  const sorted = [...b.ns].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`${b.label}: median ${median.toFixed(0)} ns/take (rounds: ${b.ns.map((n) => n.toFixed(0)).join(", ")})`);
}
