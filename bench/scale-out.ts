// The scale-out bench of issue 25: nodes on one PostgreSQL (--database) beside a node on state.db,
// in the same run, on a throw-away PostgreSQL 15 cluster with its durable defaults (fsync and
// synchronous commits on, as state.db's full sync).
//
//   npm run bench:scale-out -- [--duration S] [--connections C] [--trials N]
//
// 1. Key checks: a closed loop of keyed requests (GET /collections/lei with a search key in the
//    query string) against the SQLite node and against a PostgreSQL node: a check reads the
//    node's copy in memory on both.
// 2. Key writes: POST /keys one after another for S seconds on each: acknowledged creates a second.
// 3. Propagation: N keys created on node A, each polled on node B every millisecond until it
//    works, then deleted on A and polled on B until refused: milliseconds, p50 / p99 / max.
// Event intake and dispatch across nodes are not on PostgreSQL yet (docs/scale-out.md): not measured.
// Writes bench/out/scale-out-results.json.

import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { Args } from "./args.js";
import { Histogram, type LatencySummary } from "./histogram.js";
import { runLoad } from "./loadgen.js";
import { startCluster } from "./pg-cluster.js";
import { removeDirLater, runCli, startServer, type ServerProcess } from "./proc.js";

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const OUT = path.join(REPO, "bench/out");
const BOOT = "bench-scale-out-bootstrap-key";

interface Reply {
  status: number;
  body: string;
}

function call(node: ServerProcess, method: string, target: string, key: string, body?: unknown, localAddress?: string): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: node.host,
        port: node.port,
        method,
        path: target,
        localAddress,
        agent: localAddress === undefined ? undefined : false,
        headers: {
          "x-typesense-api-key": key,
          ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function createKey(node: ServerProcess): Promise<{ id: number; value: string }> {
  const r = await call(node, "POST", "/keys", BOOT, { actions: ["documents:search", "collections:get"], collections: ["*"] });
  if (r.status !== 201) throw new Error(`POST /keys -> ${r.status} ${r.body}`);
  return JSON.parse(r.body) as { id: number; value: string };
}

async function startNode(label: string, database: string | null): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `leidex-scale-out-${label}-`));
  removeDirLater(dataDir);
  const args = ["dist/src/main.js", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--source", "sample"];
  args.push("--shards", "1", "--rate-limit", "0", "--api-key", BOOT);
  if (database) args.push("--database", database);
  return startServer({
    command: process.execPath,
    args,
    cwd: REPO,
    readyTimeoutMs: 120_000,
    logFile: path.join(OUT, `scale-out-${label}.log`),
  });
}

function summarize(ms: number[]): LatencySummary {
  const h = new Histogram();
  for (const m of ms) h.record(m * 1000);
  return h.summary();
}

/** Milliseconds until `check` is true, polling every millisecond (throws after 10 s). */
async function msUntil(check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > 10_000) throw new Error("no change within 10 s");
    await new Promise((r) => setTimeout(r, 1));
  }
  return performance.now() - started;
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2));
  const durationS = args.number("duration", 5);
  const connections = args.int("connections", 32);
  const trials = args.int("trials", 50);
  mkdirSync(OUT, { recursive: true });
  const log = (line: string): void => console.log(`[scale-out ${new Date().toISOString().slice(11, 19)}] ${line}`);

  const cluster = await startCluster(20, log, { durable: true });
  const database = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const sqlite = await startNode("sqlite", null);
  const [a, b] = await Promise.all([startNode("pg-a", database), startNode("pg-b", database)]);

  const checks: Record<string, number> = {};
  const writes: Record<string, number> = {};
  for (const [label, node] of [
    ["SQLite node", sqlite],
    ["PostgreSQL node", a],
  ] as const) {
    const key = await createKey(node);
    const load = await runLoad({
      host: node.host,
      port: node.port,
      paths: [`/collections/lei?x-typesense-api-key=${key.value}`],
      connections,
      durationS,
      warmupS: 1,
    });
    if (load.non2xx + load.errors > 0) throw new Error(`${label}: ${load.non2xx} non-2xx, ${load.errors} errors`);
    checks[label] = load.rps;
    let created = 0;
    const until = performance.now() + durationS * 1000;
    while (performance.now() < until) {
      await createKey(node);
      created++;
    }
    writes[label] = created / durationS;
    log(`${label}: ${Math.round(load.rps)} keyed requests/s, ${writes[label].toFixed(0)} key creates/s`);
  }

  const appear: number[] = [];
  const vanish: number[] = [];
  for (let i = 0; i < trials; i++) {
    // each trial polls from its own address: refusals spend the key-guessing budget of one
    const from = `127.0.${1 + Math.floor(i / 200)}.${1 + (i % 200)}`;
    const key = await createKey(a);
    const target = `/collections/lei`;
    appear.push(await msUntil(async () => (await call(b, "GET", target, key.value, undefined, from)).status === 200));
    const gone = await call(a, "DELETE", `/keys/${key.id}`, BOOT);
    if (gone.status !== 200) throw new Error(`DELETE -> ${gone.status}`);
    vanish.push(await msUntil(async () => (await call(b, "GET", target, key.value, undefined, from)).status === 401));
  }
  const appeared = summarize(appear);
  const vanished = summarize(vanish);

  const results = { when: new Date().toISOString(), durationS, connections, trials, checks, writes, appeared, vanished };
  writeFileSync(path.join(OUT, "scale-out-results.json"), JSON.stringify(results, null, 2) + "\n");
  const ratio = (x: number, y: number): string => (x / y).toFixed(2);
  console.log(`
scale-out, ${os.availableParallelism()} cores; PostgreSQL 15 with fsync and synchronous commits on; state.db with full sync

                                      SQLite node   PostgreSQL node   PostgreSQL / SQLite
keyed requests/s (closed loop, ${String(connections).padEnd(2)} c)  ${String(Math.round(checks["SQLite node"])).padStart(11)}   ${String(Math.round(checks["PostgreSQL node"])).padStart(15)}   ${ratio(checks["PostgreSQL node"], checks["SQLite node"]).padStart(19)}
key creates/s (one at a time)         ${writes["SQLite node"].toFixed(0).padStart(11)}   ${writes["PostgreSQL node"].toFixed(0).padStart(15)}   ${ratio(writes["PostgreSQL node"], writes["SQLite node"]).padStart(19)}

cross-node propagation, ${trials} keys created and deleted on node A, polled on node B each ms:
  a new key works on B after      p50 ${appeared.p50Ms.toFixed(1)} ms, p99 ${appeared.p99Ms.toFixed(1)} ms, max ${appeared.maxMs.toFixed(1)} ms
  a deleted key is refused after  p50 ${vanished.p50Ms.toFixed(1)} ms, p99 ${vanished.p99Ms.toFixed(1)} ms, max ${vanished.maxMs.toFixed(1)} ms
event intake and dispatch across nodes: not on PostgreSQL yet, not measured
`);
  await Promise.all([sqlite.stop(), a.stop(), b.stop()]);
  cluster.stop();
}

runCli("bench:scale-out", main);
