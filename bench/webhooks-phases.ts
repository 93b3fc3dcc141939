// The parts of the dispatch bench (area C) that bench/webhooks.ts and bench/scale-out.ts share:
// - the receiver thread's handle (bench/webhooks-receiver.ts: node:https on 127.0.0.2 with the
//   test-only certificate of test/fixtures/webhooks) and the server flags that let a node send to it;
// - set-up: T tenants, a key each and H webhooks per tenant (every event fans out to its tenant's
//   H endpoints), each with max_concurrency C, their secrets given to the receiver;
// - the throughput phase: N `delivered` events in batches of B through POST /v1/events (K requests
//   in flight, as fast as intake answers 202; with several nodes, batch i goes to node i mod n),
//   then a wait until the receiver has seen every (endpoint, event) pair. Intake (events/s
//   accepted and stored, outbox rows/s, until the last 202) and end-to-end signed deliveries/s
//   from the first intake request to the receiver's last answer, CPU of the nodes and the bench;
// - the checks: bad signatures, duplicates, missing deliveries, the cap per endpoint.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Pool } from "undici";
import type { FromReceiver, ReceiverData, ReceiverProgress, ReceiverReport, ToReceiver } from "./webhooks-receiver.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Repository root, from dist/bench/ (compiled) or bench/ (sources). */
export const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");
export const OUT = path.join(REPO, "bench", "out");
export const SERVER_MAIN = path.join(REPO, "dist", "src", "main.js");
export const CERT_FILE = path.join(REPO, "test", "fixtures", "webhooks", "receiver-cert.pem");
const KEY_FILE = path.join(REPO, "test", "fixtures", "webhooks", "receiver-key.pem");
export const RECEIVER_HOST = "127.0.0.2";

export const nowMs = (): number => performance.timeOrigin + performance.now();
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
export const fmt = (x: number): string => Math.round(x).toLocaleString("en-US");

/** The server flags of area C for the bench: `dispatchers` threads, sending only to the receiver, trusting its certificate. */
export function webhookFlags(dispatchers: number): string[] {
  return ["--dispatchers", String(dispatchers), "--webhook-allow-hosts", RECEIVER_HOST, "--webhook-ca-file", CERT_FILE];
}

// ---------------------------------------------------------------- the receiver thread

export class ReceiverHandle {
  private waiting: ((m: FromReceiver) => void)[] = [];
  private constructor(
    readonly worker: Worker,
    readonly ports: number[],
  ) {
    worker.on("message", (m: FromReceiver) => {
      const w = this.waiting.shift();
      if (w) w(m);
    });
  }

  /** `behaviour`: a slower receiver (an answer delay, a connection per request, several origins); default a fast one on one port. */
  static async start(behaviour: Pick<ReceiverData, "delayMs" | "closeEach" | "origins"> = {}): Promise<ReceiverHandle> {
    const worker = new Worker(new URL("./webhooks-receiver.js", import.meta.url), {
      workerData: {
        key: readFileSync(KEY_FILE, "utf8"),
        cert: readFileSync(CERT_FILE, "utf8"),
        host: RECEIVER_HOST,
        ...behaviour,
      } satisfies ReceiverData,
    });
    const ports = await new Promise<number[]>((res, rej) => {
      worker.once("message", (m: FromReceiver) => (m.type === "listening" ? res(m.ports) : rej(new Error("receiver did not start"))));
      worker.once("error", rej);
    });
    return new ReceiverHandle(worker, ports);
  }

  private ask<T extends FromReceiver>(m: ToReceiver): Promise<T> {
    return new Promise((res) => {
      this.waiting.push(res as (m: FromReceiver) => void);
      this.worker.postMessage(m);
    });
  }

  send(m: ToReceiver): void {
    this.worker.postMessage(m);
  }
  progress(): Promise<ReceiverProgress> {
    return this.ask({ type: "progress" });
  }
  report(): Promise<ReceiverReport> {
    return this.ask({ type: "report" });
  }
  get port(): number {
    return this.ports[0];
  }
  get base(): string {
    return this.baseOf(0);
  }
  /** the i-th endpoint's origin: endpoints are spread over the receiver's ports round robin */
  baseOf(i: number): string {
    return `https://${RECEIVER_HOST}:${this.ports[i % this.ports.length]}`;
  }
}

// ---------------------------------------------------------------- CPU accounting

export const CLK_TCK = 100;
/** The fields of /proc/<pid>/stat after the command (f[1] the parent, f[11] utime, f[12] stime, f[13] cutime, f[14] cstime); null when gone. */
export function procStat(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}
/** CPU seconds (user + system, all threads) of a process, from /proc. */
export function cpuSecondsOf(pid: number): number {
  const f = procStat(pid);
  return f ? (Number(f[11]) + Number(f[12])) / CLK_TCK : 0;
}
/** CPU seconds (user + system) of each thread of a process, by thread id, from /proc/<pid>/task. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const f = procStat(`${pid}/task/${tid}`);
    if (f) out.set(Number(tid), (Number(f[11]) + Number(f[12])) / CLK_TCK);
  }
  return out;
}

/** The busiest threads over a span: CPU seconds each, the main thread (the front) named as such. */
export function busiestThreads(pid: number, before: Map<number, number>, after: Map<number, number>, top = 4): ThreadCpu[] {
  return [...after]
    .map(([tid, s]) => ({ thread: tid === pid ? "main (front)" : `tid ${tid}`, cpuSeconds: round(s - (before.get(tid) ?? 0), 2) }))
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds)
    .slice(0, top);
}

export interface ThreadCpu {
  thread: string;
  cpuSeconds: number;
}

export const selfCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// ---------------------------------------------------------------- the API

/** The fields of area C answers the bench reads. */
export interface ApiBody {
  id?: string;
  key?: string;
  secret?: string;
  accepted?: number;
  deliveries?: number;
  error?: string;
}

export async function api(
  pool: Pool,
  method: "GET" | "POST",
  p: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: ApiBody }> {
  const res = await pool.request({
    method,
    path: p,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  let parsed: ApiBody;
  try {
    parsed = JSON.parse(text) as ApiBody;
  } catch {
    parsed = { error: text };
  }
  return { status: res.statusCode, body: parsed };
}

// ---------------------------------------------------------------- set-up

export interface Endpoint {
  tenantId: string;
  id: string;
  path: string;
  secret: string;
}

export interface WebhookSetup {
  tenants: string[];
  endpoints: Endpoint[];
  /** endpoints each event goes to (its tenant's webhooks) */
  fanout: number;
}

/** Creates `tenants` tenants, a key each and `hooksPerTenant` webhooks each pointing at the receiver; tells the receiver their secrets. */
export async function setUpWebhooks(
  pool: Pool,
  operatorKey: string,
  receiver: ReceiverHandle,
  o: { tenants: number; hooksPerTenant: number; cap: number },
): Promise<WebhookSetup> {
  const tenants: string[] = [];
  const endpoints: Endpoint[] = [];
  for (let t = 0; t < o.tenants; t++) {
    const tn = await api(pool, "POST", "/v1/tenants", operatorKey, { name: `bench-${t}` });
    if (tn.status !== 201) throw new Error(`tenant creation: ${tn.status} ${JSON.stringify(tn.body)}`);
    const key = await api(pool, "POST", `/v1/tenants/${tn.body.id!}/keys`, operatorKey);
    tenants.push(tn.body.id!);
    for (let h = 0; h < o.hooksPerTenant; h++) {
      const p = `/hook/${t}-${h}`;
      const w = await api(pool, "POST", "/v1/webhooks", key.body.key!, {
        url: receiver.baseOf(endpoints.length) + p,
        event_types: ["delivered"],
        max_concurrency: o.cap,
      });
      if (w.status !== 201) throw new Error(`webhook creation: ${w.status} ${JSON.stringify(w.body)}`);
      endpoints.push({ tenantId: tn.body.id!, id: w.body.id!, path: p, secret: w.body.secret! });
    }
  }
  receiver.send({ type: "secrets", secrets: Object.fromEntries(endpoints.map((e) => [e.path, e.secret])) });
  return { tenants, endpoints, fanout: o.hooksPerTenant };
}

// ---------------------------------------------------------------- events, draining, checks

export function eventsOf(
  prefix: string,
  from: number,
  count: number,
  tenants: string[],
  stamp?: () => number,
): { id: string; [k: string]: unknown }[] {
  const ts = Math.floor(Date.now() / 1000);
  const sent = stamp ? Math.round(stamp() * 1000) : 0;
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    return {
      id: stamp ? `${prefix}-${i}-${sent}` : `${prefix}-${i}`,
      tenant_id: tenants[i % tenants.length],
      message_id: `m-${prefix}-${i}`,
      type: "delivered",
      recipient: `r${i}@example.com`,
      timestamp: ts,
      smtp_code: 250,
    };
  });
}

/** Waits until the receiver has seen `expected` unique deliveries; false when nothing new arrived for `drainTimeoutS`. */
export async function waitForDeliveries(receiver: ReceiverHandle, expected: number, drainTimeoutS: number): Promise<boolean> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const p = await receiver.progress();
    if (p.unique >= expected) return true;
    if (p.unique !== last) {
      last = p.unique;
      lastChange = Date.now();
    }
    if (Date.now() - lastChange > drainTimeoutS * 1000) return false;
    await sleep(50);
  }
}

/** Events per tenant when `events` are spread round robin over `tenants` (eventsOf). */
export function perTenant(events: number, tenants: string[]): Map<string, number> {
  return new Map(tenants.map((id, i) => [id, Math.floor(events / tenants.length) + (i < events % tenants.length ? 1 : 0)]));
}

export function checkDeliveries(
  r: ReceiverReport,
  endpoints: Endpoint[],
  expectedPerTenant: Map<string, number>,
  cap: number,
): { missing: number; capExceeded: string[] } {
  let missing = 0;
  for (const e of endpoints) missing += Math.max(0, (expectedPerTenant.get(e.tenantId) ?? 0) - (r.uniqueByPath[e.path] ?? 0));
  const capExceeded = Object.entries(r.maxInFlightByPath)
    .filter(([, n]) => n > cap)
    .map(([p, n]) => `${p}: ${n}`);
  return { missing, capExceeded };
}

// ---------------------------------------------------------------- the throughput phase

export interface ThroughputOptions {
  events: number;
  batch: number;
  intakeConcurrency: number;
  drainTimeoutS: number;
  cap: number;
  /** event ids are `<prefix>-<i>` (default "tp") */
  prefix?: string;
}

/** The shape of a dispatch run both benches set up: tenants × webhooks each, dispatcher threads, and the throughput phase's options. */
export interface DispatchRunOptions extends ThroughputOptions {
  tenants: number;
  hooksPerTenant: number;
  dispatchers: number;
}

export interface Throughput {
  events: number;
  expectedDeliveries: number;
  accepted: number;
  outboxRows: number;
  intakeErrors: number;
  drained: boolean;
  intakeSeconds: number;
  intakeEventsPerS: number;
  outboxRowsPerS: number;
  endToEndSeconds: number;
  deliveriesPerS: number;
  received: number;
  unique: number;
  duplicates: number;
  missing: number;
  badSignatures: number;
  badBodies: number;
  maxInFlightPerEndpoint: number;
  capExceeded: string[];
  serverCpuSeconds: number;
  serverCores: number;
  /** the first server's busiest threads (the dispatcher threads among them) */
  serverThreads: ThreadCpu[];
  receiverCpuSeconds: number;
  receiverCores: number;
  /** TLS connections the receiver accepted */
  receiverConnections: number;
  benchCpuSeconds: number;
  benchCores: number;
  serverCpuUsPerDelivery: number;
  benchCpuUsPerDelivery: number;
  idleTwoCoreEstimatePerS: number;
}

/**
 * N events through intake as fast as it answers, then until every delivery has reached the
 * receiver. `pools` are the nodes' connections (batch i goes to pools[i mod n]); `serverPids`
 * the processes whose CPU counts as the server's (every node); `extraCpu` another CPU counter
 * (seconds) sampled over the same span, e.g. the database's.
 */
export async function throughputPhase(
  receiver: ReceiverHandle,
  pools: Pool[],
  serverPids: number[],
  operatorKey: string,
  setup: WebhookSetup,
  o: ThroughputOptions,
  extraCpu?: () => number,
): Promise<Throughput & { extraCpuSeconds?: number }> {
  const { tenants, endpoints, fanout } = setup;
  const prefix = o.prefix ?? "tp";
  const serverCpu = (): number => serverPids.reduce((s, pid) => s + cpuSecondsOf(pid), 0);
  receiver.send({ type: "reset" });
  const receiverCpu0 = (await receiver.report()).cpuSeconds;
  const expected = o.events * fanout;
  const threads0 = threadCpuSeconds(serverPids[0]);
  const srvCpu0 = serverCpu();
  const benchCpu0 = selfCpuSeconds();
  const extra0 = extraCpu?.() ?? 0;
  const t0 = nowMs();
  let next = 0,
    accepted = 0,
    outboxRows = 0,
    intakeErrors = 0;
  const intakeLoop = async (): Promise<void> => {
    while (next < o.events) {
      const from = next;
      const n = Math.min(o.batch, o.events - from);
      next += n;
      const pool = pools[Math.floor(from / o.batch) % pools.length];
      const r = await api(pool, "POST", "/v1/events", operatorKey, { events: eventsOf(prefix, from, n, tenants) });
      if (r.status !== 202) {
        intakeErrors++;
        console.error(`  intake answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        continue;
      }
      accepted += r.body.accepted ?? 0;
      outboxRows += r.body.deliveries ?? 0;
    }
  };
  await Promise.all(Array.from({ length: o.intakeConcurrency }, intakeLoop));
  const tIntake = nowMs();
  const drained = await waitForDeliveries(receiver, expected, o.drainTimeoutS);
  const tp = await receiver.report();
  const srvCpu1 = serverCpu();
  const threads1 = threadCpuSeconds(serverPids[0]);
  const benchCpu1 = selfCpuSeconds();
  const extra1 = extraCpu?.() ?? 0;
  const intakeS = (tIntake - t0) / 1000;
  const e2eS = (tp.lastResponseMs - t0) / 1000;
  const tpCheck = checkDeliveries(tp, endpoints, perTenant(o.events, tenants), o.cap);
  return {
    events: o.events,
    expectedDeliveries: expected,
    accepted,
    outboxRows,
    intakeErrors,
    drained,
    intakeSeconds: round(intakeS, 2),
    intakeEventsPerS: Math.round(accepted / intakeS),
    outboxRowsPerS: Math.round(outboxRows / intakeS),
    endToEndSeconds: round(e2eS, 2),
    deliveriesPerS: Math.round(tp.unique / e2eS),
    received: tp.requests,
    unique: tp.unique,
    duplicates: tp.duplicates,
    missing: tpCheck.missing,
    badSignatures: tp.badSignatures,
    badBodies: tp.badBodies,
    maxInFlightPerEndpoint: Math.max(0, ...Object.values(tp.maxInFlightByPath)),
    capExceeded: tpCheck.capExceeded,
    serverCpuSeconds: round(srvCpu1 - srvCpu0, 2),
    serverCores: round((srvCpu1 - srvCpu0) / e2eS, 2),
    serverThreads: busiestThreads(serverPids[0], threads0, threads1),
    receiverCpuSeconds: round(tp.cpuSeconds - receiverCpu0, 2),
    receiverCores: round((tp.cpuSeconds - receiverCpu0) / e2eS, 2),
    receiverConnections: tp.connections,
    benchCpuSeconds: round(benchCpu1 - benchCpu0, 2),
    benchCores: round((benchCpu1 - benchCpu0) / e2eS, 2),
    // CPU time per delivery does not depend on what else runs on the machine: with two idle
    // cores for the server and the bench (sender + receiver), deliveries/s could reach 2 / (sum)
    serverCpuUsPerDelivery: Math.round(((srvCpu1 - srvCpu0) * 1e6) / Math.max(1, tp.unique)),
    benchCpuUsPerDelivery: Math.round(((benchCpu1 - benchCpu0) * 1e6) / Math.max(1, tp.unique)),
    idleTwoCoreEstimatePerS: Math.round(2e6 / Math.max(1, ((srvCpu1 - srvCpu0 + benchCpu1 - benchCpu0) * 1e6) / Math.max(1, tp.unique))),
    ...(extraCpu ? { extraCpuSeconds: round(extra1 - extra0, 2) } : {}),
  };
}

/** The throughput phase's lines, as bench:webhooks prints them. */
export function printThroughput(t: Throughput, cap: number, print: (line: string) => void = console.log): void {
  print(`  intake: ${fmt(t.intakeEventsPerS)} events/s accepted and stored, ${fmt(t.outboxRowsPerS)} outbox rows/s (${t.intakeSeconds} s)`);
  print(
    `  end to end: ${fmt(t.deliveriesPerS)} signed deliveries/s (${fmt(t.unique)} in ${t.endToEndSeconds} s, first intake request to the receiver's last 200)${t.drained ? "" : "  ** NOT DRAINED **"}`,
  );
  print(
    `  checks: bad signatures ${t.badSignatures}, bad bodies ${t.badBodies}, duplicates ${t.duplicates}, missing ${t.missing}, most in flight per endpoint ${t.maxInFlightPerEndpoint} (cap ${cap})`,
  );
  print(
    `  CPU: server ${t.serverCpuSeconds} s (${t.serverCores} cores), bench incl. receiver ${t.benchCpuSeconds} s (${t.benchCores} cores)`,
  );
  print(
    `  CPU by thread: server ${t.serverThreads.map((x) => `${x.thread} ${x.cpuSeconds} s`).join(", ")}; receiver thread ${t.receiverCpuSeconds} s (${t.receiverCores} cores), ${fmt(t.receiverConnections)} TLS connections accepted`,
  );
  print(
    `  CPU per delivery: server ${t.serverCpuUsPerDelivery} µs, bench incl. receiver ${t.benchCpuUsPerDelivery} µs (two idle cores: at most ~${fmt(t.idleTwoCoreEstimatePerS)}/s)`,
  );
}
