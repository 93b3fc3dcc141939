// The scale-out bench of issue 25: nodes on one PostgreSQL (--database) beside a node on state.db,
// in the same run, on a throw-away PostgreSQL 15 cluster with its durable defaults (fsync and
// synchronous commits on, as state.db's full sync).
//
//   npm run bench:scale-out -- [--duration S] [--connections C] [--trials N]
//                              [--events N] [--tenants T] [--hooks-per-tenant H] [--cap C] [--batch B]
//                              [--intake-concurrency K] [--dispatchers D] [--drain-timeout S]
//
// 1. Key checks: a closed loop of keyed requests (GET /collections/lei with a search key in the
//    query string) against the SQLite node and against a PostgreSQL node: a check reads the
//    node's copy in memory on both.
// 2. Key writes: POST /keys one after another for S seconds on each: acknowledged creates a second.
// 3. Propagation: N keys created on node A, each polled on node B every millisecond until it
//    works, then deleted on A and polled on B until refused: milliseconds, p50 / p99 / max.
// 4. Event intake and dispatch (area C), with the receiver and the throughput phase of the dispatch
//    bench (bench/webhooks-phases.ts: a node:https receiver on its own thread on 127.0.0.2 that
//    verifies every signature), on fresh nodes and stores: a node on state.db, then one PostgreSQL
//    node on a database of its own, then two PostgreSQL nodes on another one, the nodes of steps
//    1-3 stopped, each node with D dispatcher threads. Each configuration gets
//    T tenants × H webhooks (T × H endpoints, max_concurrency C, so that with two nodes both hold
//    leases), then N `delivered` events (50,000) in batches of B, K requests in flight (with two nodes,
//    batches alternate between them). Intake: events/s accepted (202) and outbox rows/s until the
//    last 202, measured while dispatch runs, as in bench:webhooks; dispatch: signed deliveries/s at
//    the receiver from the first intake request to its last answer. Bad signatures, duplicates and
//    missing deliveries are counted (all must be 0), the endpoints' leases per node read at the end,
//    and the CPU of the nodes and of PostgreSQL's processes taken from /proc.
// Everything (PostgreSQL, the nodes, the bench and its receiver) runs on this machine's cores:
// with 2 cores, two nodes cannot show scale-out, only what coordinating them costs.
// Writes bench/out/scale-out-results.json (node logs in bench/out/scale-out-*.log).

import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Pool } from "undici";
import { Args } from "./args.js";
import { Histogram, type LatencySummary } from "./histogram.js";
import { runLoad } from "./loadgen.js";
import { startCluster, type Cluster } from "./pg-cluster.js";
import { removeDirLater, runCli, startServer, type ServerProcess } from "./proc.js";
import {
  CLK_TCK,
  cpuSecondsOf,
  fmt,
  OUT,
  printThroughput,
  procStat,
  ReceiverHandle,
  REPO,
  setUpWebhooks,
  sleep,
  throughputPhase,
  webhookFlags,
  type DispatchRunOptions,
  type Throughput,
} from "./webhooks-phases.js";

const BOOT = "bench-scale-out-bootstrap-key";
const OPERATOR = "bench-scale-out-operator-key";

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

type Node = ServerProcess & { label: string; dataDir: string };

async function startNode(label: string, database: string | null, dispatchers: number): Promise<Node> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `leidex-scale-out-${label}-`));
  removeDirLater(dataDir);
  const args = ["dist/src/main.js", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--source", "sample"];
  args.push("--shards", "1", "--rate-limit", "0", "--api-key", BOOT, "--operator-key", OPERATOR, ...webhookFlags(dispatchers));
  if (database) args.push("--database", database);
  const server = await startServer({
    command: process.execPath,
    args,
    cwd: REPO,
    readyTimeoutMs: 120_000,
    logFile: path.join(OUT, `scale-out-${label}.log`),
  });
  return { ...server, label, dataDir };
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

// ---------------------------------------------------------------- event intake and dispatch

type WebhookOptions = DispatchRunOptions;

/** CPU seconds of a PostgreSQL cluster: the postmaster (with its children that ended) and every backend alive. */
function pgCpuSeconds(cluster: Cluster): number {
  let pm: number;
  try {
    pm = Number(readFileSync(path.join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return 0;
  }
  const own = procStat(pm);
  if (!own) return 0;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const f = procStat(name);
    if (f && Number(f[1]) === pm) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / CLK_TCK;
}

function client(cluster: Cluster, database: string): pg.Client {
  return new pg.Client({ host: "127.0.0.1", port: cluster.port, user: "postgres", database });
}

async function createDatabase(cluster: Cluster, name: string): Promise<string> {
  const c = client(cluster, "postgres");
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  return `postgres://postgres@127.0.0.1:${cluster.port}/${name}`;
}

/** Waits until `n` nodes are alive in the database's dispatch_nodes, then one more heartbeat so that each node's list holds them all. */
async function waitForDispatchNodes(cluster: Cluster, database: string, n: number): Promise<void> {
  const c = client(cluster, database);
  await c.connect();
  try {
    const until = Date.now() + 30_000;
    for (;;) {
      const r = await c.query<{ n: string }>("SELECT count(*) AS n FROM dispatch_nodes WHERE alive_until > now()");
      if (Number(r.rows[0].n) >= n) break;
      if (Date.now() > until) throw new Error(`${database}: ${r.rows[0].n} dispatch nodes alive, expected ${n}`);
      await sleep(100);
    }
  } finally {
    await c.end();
  }
  await sleep(1_500);
}

/** Deadlocks PostgreSQL detected (and rolled back) in a database; read once its nodes have stopped, when every backend has reported. */
async function deadlocksIn(cluster: Cluster, database: string): Promise<number> {
  const c = client(cluster, "postgres");
  await c.connect();
  try {
    const r = await c.query<{ n: string }>("SELECT deadlocks AS n FROM pg_stat_database WHERE datname = $1", [database]);
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

/** Lines of the nodes' logs that report a failure (a write retried, a lease lost), once they have stopped. */
async function failureLines(nodes: Node[]): Promise<string[]> {
  await sleep(200); // the log streams end as the processes exit
  return nodes.flatMap((n) =>
    readFileSync(path.join(OUT, `scale-out-${n.label}.log`), "utf8")
      .split("\n")
      .filter((l) => /fail|error|could not|deadlock/i.test(l))
      .map((l) => `${n.label}: ${l}`),
  );
}

/** Endpoints whose lease each node holds, by node label (owners are `<node-id>/<run>`). */
async function leasesByNode(cluster: Cluster, database: string, nodes: Node[]): Promise<Record<string, number>> {
  const ids = new Map(nodes.map((n) => [readFileSync(path.join(n.dataDir, "node-id"), "utf8").trim(), n.label]));
  const c = client(cluster, database);
  await c.connect();
  try {
    const r = await c.query<{ owner: string; n: string }>("SELECT owner, count(*) AS n FROM endpoint_leases GROUP BY owner");
    const out: Record<string, number> = Object.fromEntries(nodes.map((n) => [n.label, 0]));
    for (const row of r.rows) {
      const label = ids.get(row.owner.slice(0, row.owner.indexOf("/"))) ?? row.owner;
      out[label] = (out[label] ?? 0) + Number(row.n);
    }
    return out;
  } finally {
    await c.end();
  }
}

interface DispatchFigures extends Throughput {
  nodes: number;
  /** CPU seconds of each node over the phase */
  nodeCpuSeconds: Record<string, number>;
  /** CPU seconds of PostgreSQL's processes over the phase (null on the SQLite node) */
  postgresCpuSeconds: number | null;
  postgresCpuUsPerDelivery: number | null;
  /** endpoints whose lease each node held at the end (PostgreSQL only) */
  leases: Record<string, number> | null;
  /** deadlocks PostgreSQL detected in the configuration's database (each rolls a transaction back, retried by the node) */
  deadlocks: number | null;
  /** lines of the nodes' logs reporting a failure */
  logFailures: string[];
}

/** Set-up and the throughput phase on `nodes` (one store); with `pg`, PostgreSQL's CPU and the leases too. */
async function dispatchRun(
  label: string,
  nodes: Node[],
  receiver: ReceiverHandle,
  o: WebhookOptions,
  log: (line: string) => void,
  /** the cluster and the database's name */
  pg: { cluster: Cluster; database: string } | null,
): Promise<DispatchFigures> {
  const pools = nodes.map(
    (n) =>
      new Pool(`http://${n.host}:${n.port}`, {
        connections: Math.max(4, o.intakeConcurrency + 2),
        pipelining: 1,
        keepAliveTimeout: 30_000,
      }),
  );
  try {
    const setup = await setUpWebhooks(pools[0], OPERATOR, receiver, o);
    if (pg) await waitForDispatchNodes(pg.cluster, pg.database, nodes.length);
    log(
      `${label}: ${fmt(o.events)} events × ${setup.fanout} = ${fmt(o.events * setup.fanout)} deliveries to ${setup.endpoints.length} endpoints, ` +
        `batches of ${o.batch}, ${o.intakeConcurrency} in flight${nodes.length > 1 ? `, alternating between ${nodes.map((n) => n.label).join(" and ")}` : ""}`,
    );
    const cpu0 = nodes.map((n) => cpuSecondsOf(n.pid));
    const t = await throughputPhase(
      receiver,
      pools,
      nodes.map((n) => n.pid),
      OPERATOR,
      setup,
      { ...o, prefix: "tp" },
      pg ? () => pgCpuSeconds(pg.cluster) : undefined,
    );
    const cpu1 = nodes.map((n) => cpuSecondsOf(n.pid));
    printThroughput(t, o.cap);
    const { extraCpuSeconds, ...figures } = t;
    const leases = pg ? await leasesByNode(pg.cluster, pg.database, nodes) : null;
    const postgresCpuUsPerDelivery = extraCpuSeconds === undefined ? null : Math.round((extraCpuSeconds * 1e6) / Math.max(1, t.unique));
    if (extraCpuSeconds !== undefined) console.log(`  PostgreSQL CPU: ${extraCpuSeconds} s, ${postgresCpuUsPerDelivery} µs per delivery`);
    if (leases)
      console.log(
        `  leases at the end: ${Object.entries(leases)
          .map(([n, k]) => `${n} ${k}`)
          .join(", ")} endpoints`,
      );
    return {
      ...figures,
      nodes: nodes.length,
      nodeCpuSeconds: Object.fromEntries(nodes.map((n, i) => [n.label, Math.round((cpu1[i] - cpu0[i]) * 100) / 100])),
      postgresCpuSeconds: extraCpuSeconds ?? null,
      postgresCpuUsPerDelivery,
      leases,
      deadlocks: null,
      logFailures: [],
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

/** What failed of a run's checks; empty when nothing did. */
function failures(f: DispatchFigures): string[] {
  const out: string[] = [];
  if (!f.drained) out.push("not drained");
  if (f.intakeErrors > 0) out.push(`${f.intakeErrors} intake errors`);
  if (f.badSignatures > 0) out.push(`${f.badSignatures} bad signatures`);
  if (f.badBodies > 0) out.push(`${f.badBodies} bad bodies`);
  if (f.duplicates > 0) out.push(`${f.duplicates} duplicates`);
  if (f.missing > 0) out.push(`${f.missing} missing`);
  if (f.capExceeded.length > 0) out.push(`cap exceeded (${f.capExceeded.join(", ")})`);
  return out;
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2));
  const durationS = args.number("duration", 5);
  const connections = args.int("connections", 32);
  const trials = args.int("trials", 50);
  const wo: WebhookOptions = {
    events: args.int("events", 50_000),
    tenants: args.int("tenants", 8),
    hooksPerTenant: args.int("hooks-per-tenant", 2),
    cap: args.int("cap", 32),
    batch: args.int("batch", 500),
    intakeConcurrency: args.int("intake-concurrency", 2),
    dispatchers: args.int("dispatchers", 2),
    drainTimeoutS: args.number("drain-timeout", 120),
  };
  if (wo.batch < 1 || wo.batch > 1000) throw new Error("--batch must be 1..1000 (the intake limit)");
  if (wo.cap < 1 || wo.cap > 64) throw new Error("--cap must be 1..64 (the webhook limit)");
  mkdirSync(OUT, { recursive: true });
  const log = (line: string): void => console.log(`[scale-out ${new Date().toISOString().slice(11, 19)}] ${line}`);
  const cores = os.availableParallelism();
  log(
    `${cores} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}, node ${process.version}`,
  );

  const cluster = await startCluster(30, log, { durable: true });
  const database = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const sqlite = await startNode("sqlite", null, wo.dispatchers);
  const [a, b] = await Promise.all([startNode("pg-a", database, wo.dispatchers), startNode("pg-b", database, wo.dispatchers)]);

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
  await Promise.all([sqlite.stop(), a.stop(), b.stop()]);

  // ---- event intake and dispatch, on fresh nodes and stores: one SQLite node, one PostgreSQL node, two PostgreSQL nodes
  const receiver = await ReceiverHandle.start();
  const dispatch: Record<string, DispatchFigures> = {};
  try {
    const sqliteNode = await startNode("sqlite-1", null, wo.dispatchers);
    dispatch["SQLite node"] = await dispatchRun("SQLite node", [sqliteNode], receiver, wo, log, null);
    await sqliteNode.stop();
    dispatch["SQLite node"].logFailures = await failureLines([sqliteNode]);
    const one = await createDatabase(cluster, "leidex_webhooks_1");
    const pgNode = await startNode("pg-1", one, wo.dispatchers);
    dispatch["PostgreSQL node"] = await dispatchRun("PostgreSQL node", [pgNode], receiver, wo, log, {
      cluster,
      database: "leidex_webhooks_1",
    });
    await pgNode.stop();
    dispatch["PostgreSQL node"].deadlocks = await deadlocksIn(cluster, "leidex_webhooks_1");
    dispatch["PostgreSQL node"].logFailures = await failureLines([pgNode]);
    const two = await createDatabase(cluster, "leidex_webhooks_2");
    const nodes = await Promise.all([startNode("pg-2a", two, wo.dispatchers), startNode("pg-2b", two, wo.dispatchers)]);
    dispatch["2 PostgreSQL nodes"] = await dispatchRun("2 PostgreSQL nodes", nodes, receiver, wo, log, {
      cluster,
      database: "leidex_webhooks_2",
    });
    await Promise.all(nodes.map((n) => n.stop()));
    dispatch["2 PostgreSQL nodes"].deadlocks = await deadlocksIn(cluster, "leidex_webhooks_2");
    dispatch["2 PostgreSQL nodes"].logFailures = await failureLines(nodes);
  } finally {
    await receiver.worker.terminate();
  }
  const sq = dispatch["SQLite node"];
  const p1 = dispatch["PostgreSQL node"];
  const p2 = dispatch["2 PostgreSQL nodes"];
  const q = (x: number, y: number): number => Math.round((x / y) * 1000) / 1000;
  const ratios = {
    postgresToSqlite: {
      intakeEventsPerS: q(p1.intakeEventsPerS, sq.intakeEventsPerS),
      outboxRowsPerS: q(p1.outboxRowsPerS, sq.outboxRowsPerS),
      deliveriesPerS: q(p1.deliveriesPerS, sq.deliveriesPerS),
    },
    twoNodesToOne: {
      intakeEventsPerS: q(p2.intakeEventsPerS, p1.intakeEventsPerS),
      outboxRowsPerS: q(p2.outboxRowsPerS, p1.outboxRowsPerS),
      deliveriesPerS: q(p2.deliveriesPerS, p1.deliveriesPerS),
    },
  };
  const failed = Object.entries(dispatch).flatMap(([label, f]) => failures(f).map((x) => `${label}: ${x}`));
  const shared =
    `all processes (PostgreSQL, every node, the bench's sender and receiver) share this machine's ${cores} cores: ` +
    `two nodes here cannot show scale-out; the 2-node figures show what coordinating them costs`;

  const results = {
    when: new Date().toISOString(),
    durationS,
    connections,
    trials,
    checks,
    writes,
    appeared,
    vanished,
    webhooks: {
      options: wo,
      endpoints: wo.tenants * wo.hooksPerTenant,
      cores,
      note: shared,
      configs: dispatch,
      ratios,
      checksPassed: failed.length === 0,
      failures: failed,
    },
  };
  writeFileSync(path.join(OUT, "scale-out-results.json"), JSON.stringify(results, null, 2) + "\n");
  const ratio = (x: number, y: number): string => (x / y).toFixed(2);
  const cell = (x: number | null, w: number): string => (x === null ? "-" : fmt(x)).padStart(w);
  const row = (label: string, xs: (number | null)[], rs: (number | null)[]): string =>
    label.padEnd(40) +
    [cell(xs[0], 11), cell(xs[1], 17), cell(xs[2], 20)].join("") +
    rs.map((r, i) => (r === null ? "-" : r.toFixed(2)).padStart(i === 0 ? 22 : 18)).join("");
  const per = (f: DispatchFigures): number => f.serverCpuUsPerDelivery;
  const logged = Object.values(dispatch).flatMap((f) => f.logFailures.slice(0, 5));
  const logLines =
    logged.length === 0
      ? ""
      : `failures in the node logs (at most 5 a configuration):\n${logged.map((l) => `  ${l.slice(0, 200)}\n`).join("")}`;
  const checksOf = (f: DispatchFigures): string => `${f.badSignatures} / ${f.duplicates} / ${f.missing}`;
  console.log(`
scale-out, ${cores} cores; PostgreSQL 15 with fsync and synchronous commits on; state.db with full sync

                                      SQLite node   PostgreSQL node   PostgreSQL / SQLite
keyed requests/s (closed loop, ${String(connections).padEnd(2)} c)  ${String(Math.round(checks["SQLite node"])).padStart(11)}   ${String(Math.round(checks["PostgreSQL node"])).padStart(15)}   ${ratio(checks["PostgreSQL node"], checks["SQLite node"]).padStart(19)}
key creates/s (one at a time)         ${writes["SQLite node"].toFixed(0).padStart(11)}   ${writes["PostgreSQL node"].toFixed(0).padStart(15)}   ${ratio(writes["PostgreSQL node"], writes["SQLite node"]).padStart(19)}

cross-node propagation, ${trials} keys created and deleted on node A, polled on node B each ms:
  a new key works on B after      p50 ${appeared.p50Ms.toFixed(1)} ms, p99 ${appeared.p99Ms.toFixed(1)} ms, max ${appeared.maxMs.toFixed(1)} ms
  a deleted key is refused after  p50 ${vanished.p50Ms.toFixed(1)} ms, p99 ${vanished.p99Ms.toFixed(1)} ms, max ${vanished.maxMs.toFixed(1)} ms

event intake and dispatch: ${fmt(wo.events)} delivered events a configuration in batches of ${wo.batch}, ${wo.intakeConcurrency} requests in flight
(with 2 nodes, alternating between them); ${wo.tenants} tenants × ${wo.hooksPerTenant} webhooks = ${wo.tenants * wo.hooksPerTenant} endpoints, max_concurrency ${wo.cap};
${wo.dispatchers} dispatcher threads a node; each configuration on fresh nodes and a fresh store (state.db, a new database)

${"".padEnd(40)}${"SQLite node".padStart(11)}${"PostgreSQL node".padStart(17)}${"2 PostgreSQL nodes".padStart(20)}${"PostgreSQL / SQLite".padStart(22)}${"2 nodes / 1 node".padStart(18)}
${row("intake: events/s accepted (202)", [sq.intakeEventsPerS, p1.intakeEventsPerS, p2.intakeEventsPerS], [ratios.postgresToSqlite.intakeEventsPerS, ratios.twoNodesToOne.intakeEventsPerS])}
${row("intake: outbox rows/s", [sq.outboxRowsPerS, p1.outboxRowsPerS, p2.outboxRowsPerS], [ratios.postgresToSqlite.outboxRowsPerS, ratios.twoNodesToOne.outboxRowsPerS])}
${row("signed deliveries/s, end to end", [sq.deliveriesPerS, p1.deliveriesPerS, p2.deliveriesPerS], [ratios.postgresToSqlite.deliveriesPerS, ratios.twoNodesToOne.deliveriesPerS])}
${row("CPU µs per delivery: the node(s)", [per(sq), per(p1), per(p2)], [per(p1) / per(sq), per(p2) / per(p1)])}
${row("CPU µs per delivery: PostgreSQL", [null, p1.postgresCpuUsPerDelivery, p2.postgresCpuUsPerDelivery], [null, p2.postgresCpuUsPerDelivery! / p1.postgresCpuUsPerDelivery!])}
${"checks: bad sig. / duplicates / missing".padEnd(40)}${checksOf(sq).padStart(11)}${checksOf(p1).padStart(17)}${checksOf(p2).padStart(20)}
${row("PostgreSQL deadlocks (retried)", [null, p1.deadlocks, p2.deadlocks], [null, null])}
${row("node log lines reporting a failure", [sq.logFailures.length, p1.logFailures.length, p2.logFailures.length], [null, null])}
leases at the end with 2 nodes: ${Object.entries(p2.leases ?? {})
    .map(([n, k]) => `${n} ${k}`)
    .join(", ")} of ${wo.tenants * wo.hooksPerTenant} endpoints
${logLines}note: ${shared}
${failed.length === 0 ? "checks passed: no bad signature, duplicate or missing delivery, nothing over the cap" : `CHECKS FAILED: ${failed.join("; ")}`}
wrote bench/out/scale-out-results.json
`);
  cluster.stop();
  if (failed.length > 0) throw new Error(`checks failed: ${failed.join("; ")}`);
}

runCli("bench:scale-out", main);
