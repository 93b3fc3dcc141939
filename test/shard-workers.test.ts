// Every shard worker serves every slice from one copy of the index in shared memory
// (src/engine/wasm-slice.ts, pool.ts): whatever the worker count the defaults or --workers choose,
// the answers are the same, byte for byte but for their timing, and every worker answers its share
// of concurrent searches. With more slices than workers, each worker serves several. A front
// thread answers the search rounds within its budget itself (--front-search-budget), on its own
// engine instance over the same memory: the same answers again, with no request to a worker.
// A reload's slices are built on a worker of their own, and a worker dropping the replaced
// generation takes no searches meanwhile, so a reload holds up none.

import { rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import t, { type Test } from "tap";
import { GleifImitation, sampleGoldenCopy, type GoldenCopy } from "./helpers/gleif-imitation.js";
import { metric, startServer, tempDir, type RunningServer } from "./helpers/server.js";

const QUERIES = [
  "q=bank",
  "q=deutsche%20bank",
  "q=bnak",
  "q=siemns",
  "q=holding%20gmbh",
  "q=appl",
  "q=volkswagen%20ag",
  "q=fund&jurisdiction=LU&facets=status,registrationStatus",
  "q=societe%20generale&limit=5&page=2",
  "q=invest&registrationStatus=LAPSED&facets=jurisdiction",
  "q=xqzzyv",
  "q=banco%20santandr",
  "q=%D0%B1%D0%B0%D0%BD%D0%BA",
];

/** Every query's answer without its timing. */
async function answers(srv: RunningServer): Promise<string[]> {
  const out: string[] = [];
  for (const q of QUERIES) {
    const r = await srv.get(`/v1/entities?${q}`);
    if (r.status !== 200) throw new Error(`${q}: ${r.status} ${r.text}`);
    out.push(r.text.replace(/"searchTimeMs":\d+(\.\d+)?,?/, ""));
  }
  out.push((await srv.get("/v1/facets/jurisdiction")).text);
  return out;
}

/** Requests each worker was sent, from /metrics. */
async function perWorker(srv: RunningServer, workers: number): Promise<number[]> {
  const text = (await srv.get("/metrics")).text;
  return Array.from({ length: workers }, (_, w) => metric(text, "leidex_shard_requests_total", { worker: String(w) }) ?? -1);
}

/** Every search goes to the shard workers: what these tests are about. */
const WORKERS_ONLY = ["--front-search-budget", "0"];

/**
 * A server on 2 workers live on a first GLEIF publication; then the file `hook` (a test-only hold
 * in shard.ts) names is made, so each task it holds spins while the file exists, and `next` is
 * published and the reload started.
 */
async function reloadHolding(
  t: Test,
  hook: string,
  next: GoldenCopy,
): Promise<{ srv: RunningServer; first: GoldenCopy; hold: string; mark: number }> {
  const gleif = await GleifImitation.start();
  t.teardown(() => gleif.close());
  const first = sampleGoldenCopy("2026-09-30 08:00:00");
  gleif.publish(first);
  const dir = tempDir(t);
  const hold = join(dir, "hold");
  const srv = await startServer(t, {
    source: null,
    shards: "auto",
    workers: 2,
    dataDir: join(dir, "data"),
    timeoutMs: 90_000,
    env: { [hook]: hold },
    args: [...WORKERS_ONLY, "--gleif-api", gleif.api, "--gleif-mapping-api", gleif.api.replace(/\/api\/v2$/, "/mapping/api/v2")],
  });
  t.equal((await srv.json("/v1/stats")).published, first.published, "the first publication is live");
  writeFileSync(hold, "");
  t.teardown(() => rmSync(hold, { force: true }));
  gleif.publish(next);
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  return { srv, first, hold, mark };
}

/** The statuses of 24 distinct searches sent at once, each given 20 s. */
async function searchesMeanwhile(srv: RunningServer, tag: string): Promise<(number | string)[]> {
  const timedOut = { status: "no answer in 20 s" };
  const answers = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      Promise.race([srv.get(`/v1/entities?q=bank%20${i}${tag}&limit=1`), sleep(20_000).then(() => timedOut)]),
    ),
  );
  return answers.map((r) => r.status);
}
const cores = availableParallelism();
const counts = [...new Set([1, 2, 4, 8, cores])].sort((a, b) => a - b);
const baseline = await startServer(t, { shards: "auto", workers: 1, args: WORKERS_ONLY });
const expected = await answers(baseline);
await baseline.stop();

for (const workers of counts) {
  t.test(`${workers} worker(s), one slice: the same answers, and the workers answer`, async (t) => {
    const srv = await startServer(t, { shards: "auto", workers: workers === cores ? undefined : workers, args: WORKERS_ONLY });
    t.same(await answers(srv), expected, "identical answers to one worker's");
    // distinct searches at once: the pool spreads each turn's batch over the idle workers, as many as there are cores
    const before = await perWorker(srv, workers);
    t.ok(
      before.every((n) => n >= 0),
      `/metrics counts requests for each of the ${workers} worker(s)`,
    );
    const burst = Array.from({ length: 40 * workers }, (_, i) => srv.get(`/v1/entities?q=bank%20${i}x&limit=1`));
    t.ok(
      (await Promise.all(burst)).every((r) => r.status === 200),
      "a burst of distinct searches answers 200",
    );
    const after = await perWorker(srv, workers);
    const answered = after.map((n, w) => n - before[w]);
    // with more workers than cores, batches go to the first `cores` ones until those are full (query-router.ts)
    const spread = Math.min(workers, cores);
    t.ok(
      answered.slice(0, spread).every((n) => n > 0),
      `each of the first ${spread} worker(s) answered part of the burst: ${answered.join(", ")}`,
    );
    t.ok(answered.reduce((a, b) => a + b, 0) >= burst.length, "the workers answered every search of the burst");
  });
}

t.test("3 slices on 2 workers: each worker serves every slice; answers as on one slice", async (t) => {
  const srv = await startServer(t, { shards: 3, workers: 2, args: WORKERS_ONLY });
  t.same(await answers(srv), expected, "identical answers");
});

/** Requests sent to all workers, from /metrics. */
async function sentToWorkers(srv: RunningServer): Promise<number> {
  return (await perWorker(srv, cores)).reduce((a, b) => a + b, 0);
}

t.test("the front thread answers searches within its budget itself, the rest through the workers, all alike", async (t) => {
  for (const shards of ["auto", 3] as const) {
    const srv = await startServer(t, { shards });
    t.same(await answers(srv), expected, `${shards} slice(s), the default budget: the workers' answers`);
    // One at a time, each in a turn of its own: a pasted name is one round a slice, well within
    // the budget. A turn's first round is always answered here; the slices after it are too
    // unless the turn has spent its engine time (a busy machine), then a worker takes them.
    const names = ["Lino Engineering AB", "PETERSHILL IV EMPLOYEE LP", "AKM Consulting AB"];
    const slices = shards === "auto" ? 1 : shards;
    const before = await sentToWorkers(srv);
    for (const name of names) t.equal((await srv.get(`/v1/entities?q=${encodeURIComponent(name)}&limit=3`)).status, 200);
    const sent = (await sentToWorkers(srv)) - before;
    t.ok(sent <= (slices - 1) * names.length, `${shards} slice(s): ${sent} of ${slices * names.length} rounds went to a worker`);
  }
  const strict = await startServer(t, { shards: "auto", args: ["--front-search-budget", "1"] });
  t.same(await answers(strict), expected, "a budget of one posting: the same answers");
  const before = await sentToWorkers(strict);
  t.equal((await strict.get("/v1/entities?q=deutsche%20bank&limit=2")).status, 200);
  t.ok((await sentToWorkers(strict)) > before, "a search over the budget goes to a worker");
});

t.test("a reload's slice is built on a worker that answers no requests: searches meanwhile are answered", async (t) => {
  // while the hold file exists, each slice's finish holds its thread, as a large build does
  const next = sampleGoldenCopy("2026-09-30 16:00:00", [], 6000);
  const { srv, first, hold, mark } = await reloadHolding(t, "LEIDEX_TEST_HOLD_FINISH_WHILE", next);
  for (let i = 0; i < 600 && !/finishing \d+ slice/.test(srv.stdout().slice(mark)); i++) await sleep(50);
  t.match(srv.stdout().slice(mark), /finishing 1 slice/, "the reload is finishing its slice, and holds its thread");
  await sleep(200); // the finish task has reached its worker
  t.same(
    await searchesMeanwhile(srv, "y"),
    new Array(24).fill(200),
    "distinct searches sent while the slice is being built are answered before it is done",
  );
  t.equal((await srv.json("/v1/stats")).published, first.published, "from the live publication");
  rmSync(hold);
  for (let i = 0; i < 600 && (await srv.json("/v1/stats")).published !== next.published; i++) await sleep(100);
  t.equal((await srv.json("/v1/stats")).records, 6000, "once the build is let go, the reload goes live");
});

t.test("a worker dropping a replaced generation rests: searches meanwhile go to the other worker", async (t) => {
  // while the hold file exists, each drop holds its thread, as a large generation's collection does;
  // over 31 days on, the next publication is a full load, with no delta whose failure would drop a build first
  const next = sampleGoldenCopy("2026-11-15 08:00:00", [], 6000);
  const { srv, hold } = await reloadHolding(t, "LEIDEX_TEST_HOLD_DROP_WHILE", next);
  for (let i = 0; i < 600 && (await srv.json("/v1/stats")).published !== next.published; i++) await sleep(100);
  t.equal((await srv.json("/v1/stats")).published, next.published, "the reload is live; the first publication's drop holds worker 0");
  await sleep(500); // the drop has reached worker 0
  const before = await perWorker(srv, 2);
  t.same(await searchesMeanwhile(srv, "z"), new Array(24).fill(200), "distinct searches sent during the drop are answered");
  const after = await perWorker(srv, 2);
  t.equal(after[0] - before[0], 0, "the dropping worker was sent none of them");
  t.ok(after[1] - before[1] >= 24, "the other worker answered them all");
  rmSync(hold);
  await sleep(500);
  const sent = await perWorker(srv, 2);
  await Promise.all(Array.from({ length: 24 }, (_, i) => srv.get(`/v1/entities?q=bank%20${i}w&limit=1`)));
  const later = await perWorker(srv, 2);
  t.ok(later[0] > sent[0] && later[1] > sent[1], "once the drops are done, both workers take searches again");
});
