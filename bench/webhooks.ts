// The dispatch bench of area C (issue 5): signed webhook deliveries from event intake to a local
// HTTPS receiver, with the receiver's own ceiling measured in the same run.
//
//   npm run bench:webhooks -- [--events N] [--tenants T] [--hooks-per-tenant H] [--cap C]
//                             [--batch B] [--intake-concurrency K] [--dispatchers D]
//                             [--rate R] [--latency-seconds S] [--baseline-seconds S]
//                             [--baseline-concurrency C] [--drain-timeout S] [--profile]
//                             [--endpoints-1000] [--receiver-delay-ms MS] [--receiver-close]
//                             [--origins O] [--server-dist DIR]
//
// --endpoints-1000 is the shape of the outside probe of issue 42: 1,000 tenants with one webhook
// each (max_concurrency 4, the default), 50,000 events, no latency phase. A slower receiver:
// --receiver-delay-ms answers each request that much later, --receiver-close closes the
// connection after each answer (a new TLS connection per request), --origins spreads the
// endpoints over that many receiver ports (one connection pool each at the server).
// --server-dist runs another build's dist/src/main.js (e.g. the previous commit's) for a baseline.
//
// 1. Starts the receiver (bench/webhooks-receiver.ts, node:https on 127.0.0.2 with the test-only
//    certificate of test/fixtures/webhooks, on its own thread) and measures its raw capacity: bare
//    keep-alive HTTPS POST loops (bench/webhooks-baseline.ts) on as many threads as the server has
//    dispatcher threads, same body size, same signing, no server.
// 2. Starts `node dist/src/main.js --source sample` on 127.0.0.1 with a fresh data dir,
//    `--webhook-allow-hosts 127.0.0.2 --webhook-ca-file <test cert>`, creates T tenants, a key
//    each and H webhooks per tenant (every event fans out to its tenant's H endpoints), each with
//    max_concurrency C so that the cap is not what limits the run.
// 3. Throughput: N `delivered` events in batches of B through POST /v1/events (K requests in
//    flight, as fast as intake answers 202), then waits until the receiver has seen every
//    (endpoint, event) pair. Reports intake (events/s accepted and stored, outbox rows/s) and
//    end-to-end signed deliveries/s from the first intake request to the receiver's last answer.
// 4. Latency: open loop at R events/s for S seconds (a batch every 5 ms holding whatever is due,
//    never waiting for answers); each event id carries its send time, the receiver takes the
//    difference on arrival: p50/p99/max from intake to delivery.
// 5. Every signature is verified; bad signatures, duplicates and missing deliveries are counted
//    (all must be 0). Prints the figures; writes bench/out/webhooks-results.json (server log in
//    bench/out/webhooks-server.log; with --profile, CPU profiles in bench/out/webhooks-prof/).
// The receiver's handle, the set-up of step 2, the throughput phase and the checks are in
// bench/webhooks-phases.ts, shared with bench/scale-out.ts.

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { Pool } from "undici";
import { Args, isMain } from "./args.js";
import { removeDirLater, runCli, startServer, type ServerProcess } from "./proc.js";
import type { BaselineData, BaselineDone } from "./webhooks-baseline.js";
import {
  api,
  CERT_FILE,
  checkDeliveries,
  cpuSecondsOf,
  eventsOf,
  fmt,
  nowMs,
  OUT,
  perTenant,
  printThroughput,
  ReceiverHandle,
  REPO,
  round,
  selfCpuSeconds,
  SERVER_MAIN,
  setUpWebhooks,
  sleep,
  throughputPhase,
  waitForDeliveries,
  webhookFlags,
  type DispatchRunOptions,
  type WebhookSetup,
} from "./webhooks-phases.js";

const TARGET_PER_S = 5000;

interface Options extends DispatchRunOptions {
  rate: number;
  latencySeconds: number;
  baselineSeconds: number;
  baselineConcurrency: number;
  profile: boolean;
  receiverDelayMs: number;
  receiverClose: boolean;
  origins: number;
  serverMain: string;
}

function parseOptions(argv: string[]): Options {
  const a = new Args(argv, ["profile", "endpoints-1000", "receiver-close"]);
  const probe = a.flag("endpoints-1000");
  const dist = a.string("server-dist") ?? "";
  const o: Options = {
    events: a.int("events", probe ? 50_000 : 25_000),
    tenants: a.int("tenants", probe ? 1000 : 8),
    hooksPerTenant: a.int("hooks-per-tenant", probe ? 1 : 2),
    cap: a.int("cap", probe ? 4 : 32),
    batch: a.int("batch", 500),
    intakeConcurrency: a.int("intake-concurrency", 2),
    dispatchers: a.int("dispatchers", 2),
    rate: a.number("rate", 1000),
    latencySeconds: a.number("latency-seconds", probe ? 0 : 20),
    baselineSeconds: a.number("baseline-seconds", 8),
    baselineConcurrency: a.int("baseline-concurrency", 64),
    drainTimeoutS: a.number("drain-timeout", 120),
    profile: a.flag("profile"),
    receiverDelayMs: a.int("receiver-delay-ms", 0),
    receiverClose: a.flag("receiver-close"),
    origins: a.int("origins", 1),
    serverMain: dist ? path.resolve(dist, "src", "main.js") : SERVER_MAIN,
  };
  if (o.batch < 1 || o.batch > 1000) throw new Error("--batch must be 1..1000 (the intake limit)");
  if (o.cap < 1 || o.cap > 64) throw new Error("--cap must be 1..64 (the webhook limit)");
  return o;
}

// ---------------------------------------------------------------- baseline: bare HTTPS POST loop

interface Baseline {
  requests: number;
  seconds: number;
  perSecond: number;
  threads: number;
  concurrency: number;
  bodyBytes: number;
  badSignatures: number;
  errors: number;
  clientCpuSeconds: number;
}

/** The receiver's raw capacity: `threads` bare POST loops (as many as the server has dispatcher threads), `concurrency` connections in all. */
async function baseline(
  receiver: ReceiverHandle,
  seconds: number,
  concurrency: number,
  threads: number,
  bodyBytes: number,
): Promise<Baseline> {
  const secret = `whsec_${randomBytes(24).toString("hex")}`;
  const paths = Array.from({ length: 16 }, (_, i) => `/base/${i}`);
  receiver.send({ type: "secrets", secrets: Object.fromEntries(paths.map((p) => [p, secret])) });
  receiver.send({ type: "reset" });
  const ca = readFileSync(CERT_FILE, "utf8");
  const workers = await Promise.all(
    Array.from(
      { length: threads },
      (_, thread) =>
        new Promise<Worker>((res, rej) => {
          const w = new Worker(new URL("./webhooks-baseline.js", import.meta.url), {
            workerData: {
              base: receiver.base,
              paths,
              secret,
              seconds,
              connections: Math.max(1, Math.round(concurrency / threads)),
              bodyBytes,
              ca,
              thread,
            } satisfies BaselineData,
          });
          w.once("message", () => res(w));
          w.once("error", rej);
        }),
    ),
  );
  const cpu0 = selfCpuSeconds();
  const t0 = nowMs();
  const done = await Promise.all(
    workers.map(
      (w) =>
        new Promise<BaselineDone>((res, rej) => {
          w.once("message", (m: BaselineDone) => {
            res(m);
            void w.terminate();
          });
          w.once("error", rej);
          w.postMessage("go");
        }),
    ),
  );
  const t1 = nowMs();
  const cpu = selfCpuSeconds() - cpu0;
  const r = await receiver.report();
  return {
    requests: r.unique,
    seconds: round((t1 - t0) / 1000, 2),
    perSecond: Math.round(r.unique / ((t1 - t0) / 1000)),
    threads,
    concurrency,
    bodyBytes: r.requests ? Math.round(r.bodyBytes / r.requests) : 0,
    badSignatures: r.badSignatures,
    errors: done.reduce((a, b) => a + b.errors, 0),
    clientCpuSeconds: round(cpu, 2),
  };
}

// ---------------------------------------------------------------- the server

interface Server {
  process: ServerProcess;
  base: string;
  dataDir: string;
  stop(): Promise<void>;
}

async function startLeidex(opts: Options, logFile: string, profDir: string | null): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-webhooks-bench-"));
  const removeData = removeDirLater(dataDir);
  const args = [
    ...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []),
    opts.serverMain,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--source",
    "sample",
    "--shards",
    "1",
    "--rate-limit",
    "0",
    ...webhookFlags(opts.dispatchers),
  ];
  const server = await startServer({ command: process.execPath, args, readyTimeoutMs: 120_000, logFile, cwd: REPO });
  return {
    process: server,
    base: `http://127.0.0.1:${server.port}`,
    dataDir,
    stop: async () => {
      await server.stop();
      removeData();
    },
  };
}

// ---------------------------------------------------------------- phases

function percentiles(xs: number[]): { count: number; p50Ms: number; p90Ms: number; p99Ms: number; maxMs: number; meanMs: number } {
  if (xs.length === 0) return { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 };
  const s = Float64Array.from(xs).sort();
  const at = (p: number): number => round(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))], 2);
  return {
    count: s.length,
    p50Ms: at(50),
    p90Ms: at(90),
    p99Ms: at(99),
    maxMs: round(s[s.length - 1], 2),
    meanMs: round(s.reduce((a, b) => a + b, 0) / s.length, 2),
  };
}

/** Open loop at `rate` events/s for `latencySeconds`: intake to delivery p50/p90/p99/max. */
async function latencyPhase(receiver: ReceiverHandle, pool: Pool, op: string, server: Server, setup: WebhookSetup, opts: Options) {
  const { tenants, endpoints, fanout } = setup;
  receiver.send({ type: "reset" });
  const latExpectedEvents = Math.round(opts.rate * opts.latencySeconds);
  console.log(
    `\nlatency: open loop at ${fmt(opts.rate)} events/s for ${opts.latencySeconds} s (${fmt(latExpectedEvents)} events, ${fmt(latExpectedEvents * fanout)} deliveries)`,
  );
  const srvCpu2 = cpuSecondsOf(server.process.pid);
  const l0 = nowMs();
  let sent = 0;
  const intakeMs: number[] = [];
  const inflight = new Set<Promise<void>>();
  let latIntakeErrors = 0;
  while (sent < latExpectedEvents) {
    const due = Math.min(latExpectedEvents, Math.floor(((nowMs() - l0) / 1000) * opts.rate)) - sent;
    if (due > 0) {
      const n = Math.min(due, 1000);
      const from = sent;
      sent += n;
      const started = nowMs();
      const p = api(pool, "POST", "/v1/events", op, { events: eventsOf("lat", from, n, tenants, () => started) }).then((r) => {
        if (r.status !== 202) latIntakeErrors++;
        intakeMs.push(nowMs() - started);
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await sleep(5);
  }
  await Promise.all(inflight);
  const latDrained = await waitForDeliveries(receiver, latExpectedEvents * fanout, opts.drainTimeoutS);
  const lat = await receiver.report();
  const srvCpu3 = cpuSecondsOf(server.process.pid);
  const latWall = (lat.lastResponseMs - l0) / 1000;
  const latCheck = checkDeliveries(lat, endpoints, perTenant(latExpectedEvents, tenants), opts.cap);
  const latency = {
    ratePerS: opts.rate,
    seconds: opts.latencySeconds,
    events: latExpectedEvents,
    deliveries: lat.unique,
    drained: latDrained,
    intakeErrors: latIntakeErrors,
    intakeToDelivery: percentiles(lat.latenciesMs),
    intakeRequest: percentiles(intakeMs),
    duplicates: lat.duplicates,
    missing: latCheck.missing,
    badSignatures: lat.badSignatures,
    badBodies: lat.badBodies,
    capExceeded: latCheck.capExceeded,
    serverCores: round((srvCpu3 - srvCpu2) / latWall, 2),
  };
  const d = latency.intakeToDelivery;
  console.log(
    `  intake to delivery: p50 ${d.p50Ms} ms, p90 ${d.p90Ms} ms, p99 ${d.p99Ms} ms, max ${d.maxMs} ms (${fmt(d.count)} deliveries)${latDrained ? "" : "  ** NOT DRAINED **"}`,
  );
  console.log(
    `  intake request (202): p50 ${latency.intakeRequest.p50Ms} ms, p99 ${latency.intakeRequest.p99Ms} ms; server CPU ${latency.serverCores} cores`,
  );
  console.log(
    `  checks: bad signatures ${lat.badSignatures}, bad bodies ${lat.badBodies}, duplicates ${lat.duplicates}, missing ${latCheck.missing}`,
  );

  return latency;
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  if (!existsSync(opts.serverMain)) throw new Error(`${opts.serverMain} is missing: run npm run build first`);
  mkdirSync(OUT, { recursive: true });
  const profDir = opts.profile ? path.join(OUT, "webhooks-prof") : null;
  if (profDir) {
    rmSync(profDir, { recursive: true, force: true });
    mkdirSync(profDir, { recursive: true });
  }
  const loadAtStart = os.loadavg().map((x) => round(x, 2));
  console.log(`dispatch bench: ${os.cpus().length} cores, load average ${loadAtStart.join(" ")}, node ${process.version}`);

  const receiver = await ReceiverHandle.start({ delayMs: opts.receiverDelayMs, closeEach: opts.receiverClose, origins: opts.origins });
  console.log(
    `receiver: ${opts.origins} origin(s), ${opts.receiverDelayMs ? `answers after ${opts.receiverDelayMs} ms` : "answers at once"}, ${opts.receiverClose ? "a new connection per request" : "keep-alive"}; server ${path.relative(REPO, opts.serverMain)}`,
  );

  // The body a dispatch carries: build one event exactly as the server will and measure it.
  const sampleBody = JSON.stringify({
    id: "tp-12345",
    type: "delivered",
    created_at: new Date().toISOString(),
    tenant_id: "tn_0123456789abcdef",
    data: { message_id: "m-tp-12345", recipient: "r12345@example.com", timestamp: 1_700_000_000, smtp_code: 250 },
  });
  console.log(
    `\nbaseline: bare HTTPS POST loops from the bench to the receiver on ${opts.dispatchers} threads (as many as dispatcher threads), ${opts.baselineConcurrency} keep-alive connections in all, ${opts.baselineSeconds} s, ~${sampleBody.length} B bodies, signed and verified, no server`,
  );
  const base = await baseline(receiver, opts.baselineSeconds, opts.baselineConcurrency, opts.dispatchers, sampleBody.length);
  console.log(
    `  ${fmt(base.perSecond)} requests/s (${fmt(base.requests)} in ${base.seconds} s), bad signatures ${base.badSignatures}, errors ${base.errors}, bench CPU (clients + receiver) ${base.clientCpuSeconds} s = ${Math.round((base.clientCpuSeconds * 1e6) / Math.max(1, base.requests))} µs per request`,
  );

  const server = await startLeidex(opts, path.join(OUT, "webhooks-server.log"), profDir);
  const pool = new Pool(server.base, { connections: Math.max(4, opts.intakeConcurrency + 2), pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    const op = readFileSync(path.join(server.dataDir, "operator-key"), "utf8").trim();
    const setup = await setUpWebhooks(pool, op, receiver, opts);
    const { endpoints, fanout } = setup;
    console.log(
      `\nserver: pid ${server.process.pid}, ${opts.dispatchers} dispatcher threads, ${opts.tenants} tenants × ${fanout} webhooks = ${endpoints.length} endpoints, max_concurrency ${opts.cap} each`,
    );

    // ---- a. throughput
    console.log(
      `\nthroughput: ${fmt(opts.events)} events (× ${fanout} endpoints = ${fmt(opts.events * fanout)} deliveries), batches of ${opts.batch}, ${opts.intakeConcurrency} intake requests in flight`,
    );
    const throughput = await throughputPhase(receiver, [pool], [server.process.pid], op, setup, opts);
    printThroughput(throughput, opts.cap);

    // ---- b. latency at a fixed open-loop rate (skipped with --latency-seconds 0)
    const latency = opts.latencySeconds > 0 ? await latencyPhase(receiver, pool, op, server, setup, opts) : null;
    const d = latency?.intakeToDelivery;

    const ok =
      throughput.badSignatures === 0 &&
      throughput.missing === 0 &&
      throughput.duplicates === 0 &&
      (latency === null || (latency.badSignatures === 0 && latency.missing === 0 && latency.capExceeded.length === 0)) &&
      throughput.capExceeded.length === 0;
    console.log(
      `\nsummary: ${fmt(throughput.deliveriesPerS)} signed deliveries/s end to end (target ${fmt(TARGET_PER_S)}: ${throughput.deliveriesPerS >= TARGET_PER_S ? "met" : "NOT met"}), ` +
        `${round((100 * throughput.deliveriesPerS) / base.perSecond, 0)} % of the receiver's bare ${fmt(base.perSecond)}/s; ` +
        (d ? `p99 ${d.p99Ms} ms at ${fmt(opts.rate)} events/s; ` : "") +
        `${ok ? "no bad signature, duplicate or missing delivery, cap held" : "CHECKS FAILED"}`,
    );

    const results = {
      when: new Date().toISOString(),
      machine: { cores: os.cpus().length, model: os.cpus()[0]?.model ?? "", loadAverageAtStart: loadAtStart, node: process.version },
      options: opts,
      endpoints: endpoints.length,
      baseline: base,
      throughput,
      latency,
      targetDeliveriesPerS: TARGET_PER_S,
      checksPassed: ok,
    };
    writeFileSync(path.join(OUT, "webhooks-results.json"), `${JSON.stringify(results, null, 2)}\n`);
    console.log(`wrote bench/out/webhooks-results.json`);
    if (!ok) throw new Error("a check failed: bad signatures, duplicates, missing deliveries or the cap exceeded (see above)");
  } finally {
    await pool.close();
    await server.stop();
    await receiver.worker.terminate();
    if (profDir) console.log(`CPU profiles in ${path.relative(REPO, profDir)}`);
  }
}

if (isMain(import.meta.url)) runCli("webhooks bench", main);
