import { readFileSync } from "node:fs";
import { runLoad } from "./dist/bench/loadgen.js";
const { queries } = JSON.parse(readFileSync("bench/out/load-queries-1000000-s1-v4-q100000.json", "utf8"));
for (const kind of process.argv.slice(3)) {
  const paths = queries.slice(0, 20000).map(q => kind === "lookup" ? `/v1/entities/${q.lei}` : `/v1/entities?q=${encodeURIComponent(q.typoQuery)}`);
  const r = await runLoad({ host: "127.0.0.1", port: Number(process.argv[2]), paths, connections: 64, durationS: 8, warmupS: 1 });
  console.log(kind, Math.round(r.rps), "rps p50", r.latency.p50Ms, "p99", r.latency.p99Ms, "clientCpu", Math.round(r.clientCpuPct));
}
