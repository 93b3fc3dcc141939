// Threads that die. A shard worker that crashes loses none of the index (its memory is shared):
// its successor serves every slice again, takes requests, and the answers are those from before.
// A front thread that crashes loses only the connections it held: its app leaves the shared
// listen socket, it starts again, and then takes its share of new connections, with the same
// answers. Crashes are made from outside, through the Node inspector the server runs with, as a
// bug would make them (an uncaught error thrown on that thread).

import { request as httpRequest } from "node:http";
import t from "tap";
import { sampleModel } from "./helpers/fixture.js";
import { Inspector } from "./helpers/inspector.js";
import { metric, startServer, type RunningServer } from "./helpers/server.js";

const SHARD_SCRIPT = /piscina\/dist\/worker\.js$/;
const FRONT_SCRIPT = /\/workers\/front\.js$/;
const CRASH = `setTimeout(() => { throw new Error("crashed through the inspector"); }, 0); "armed"`;

const model = sampleModel();
const PATHS = [
  "/v1/entities?q=bank",
  "/v1/entities?q=bnak&limit=3",
  "/v1/entities?q=holding%20gmbh&facets=country,status",
  "/v1/entities?q=fund&country=LU&page=2",
  `/v1/entities/${model[0].entity.lei}`,
  `/v1/entities/${model[1].entity.lei}`,
];

/** One GET on a connection of its own (the acceptor hands each new connection to the next thread): status and body, timings out. */
function fresh(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve(
          `${res.statusCode} ${Buffer.concat(chunks)
            .toString()
            .replace(/"searchTimeMs":[\d.]+/g, "")}`,
        ),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Every path, `copies` times each, on fresh connections. */
async function answers(srv: RunningServer, copies: number): Promise<string[]> {
  const out: string[] = [];
  for (const path of PATHS) for (let i = 0; i < copies; i++) out.push(await fresh(srv.port, path));
  return out;
}

async function counter(srv: RunningServer, name: string, labels: Record<string, string>): Promise<number> {
  return metric((await srv.get("/metrics")).text, name, labels) ?? -1;
}

/** Waits (10 s at most) for the server's log to match. */
async function logged(srv: RunningServer, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 200 && !pattern.test(srv.stdout()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return srv.stdout();
}

/** Asks until `ok` holds for an answer set, 20 s at most: a restarted thread rejoins in its own time. */
async function eventually(srv: RunningServer, copies: number, ok: (got: string[]) => boolean): Promise<string[]> {
  let got: string[] = [];
  for (let i = 0; i < 40; i++) {
    got = await answers(srv, copies);
    if (ok(got)) return got;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return got;
}

const srv = await startServer(t, {
  shards: "auto",
  // no answer cache, and no search answered on the front thread: every search after a crash
  // reaches the shard workers again
  args: ["--workers", "2", "--front-threads", "2", "--cache-mb", "0", "--front-search-budget", "0"],
  env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --inspect=127.0.0.1:0` },
});
const inspector = await Inspector.of(srv.stderr());
t.teardown(() => inspector.close());
const before = await answers(srv, 2);
t.ok(
  before.every((a) => a.startsWith("200 ")),
  "every request is answered 200 before any crash",
);

t.test("a shard worker that crashes: its successor serves every slice, with the same answers", async (t) => {
  await inspector.thread(SHARD_SCRIPT, 2);
  const threads = inspector.threads(SHARD_SCRIPT);
  const known = threads.length;
  t.equal(known, 3, "three shard threads run: the two workers that answer requests, and the builder");
  // each thread's number, as it claimed it (pool.ts): the last is the builder's
  const numberOf = async (session: string): Promise<number> =>
    (
      (await inspector.evaluate(
        session,
        `(() => { const wt = process.getBuiltinModule("worker_threads"); return new Int32Array(wt.workerData.claims).indexOf(wt.threadId); })()`,
      )) as { result: { value: number } }
    ).result.value;
  const numbers = await Promise.all(threads.map(numberOf));
  t.same([...numbers].sort(), [0, 1, 2], "they hold the numbers 0, 1 and 2");
  const answering = threads.filter((_, i) => numbers[i] < 2);
  await inspector.evaluate(answering[answering.length - 1], CRASH);
  const replaced = /shard worker (\d) died; its successor serves every slice/;
  const log = await logged(srv, replaced);
  const w = replaced.exec(log)?.[1];
  t.ok(w !== undefined, "the log says a shard worker died and its successor serves every slice");
  await inspector.thread(SHARD_SCRIPT, known);
  const sent = await counter(srv, "leidex_shard_requests_total", { worker: w ?? "0" });
  const after = await eventually(srv, 2, (got) => got.every((a, i) => a === before[i]));
  t.same(after, before, "every answer after the crash is the answer from before it");
  // the least busy worker takes each batch: a burst keeps both busy
  const burst = await Promise.all(
    Array.from({ length: 60 }, (_, i) => fresh(srv.port, `/v1/entities?q=${["bank", "fund", "trust"][i % 3]}&page=${1 + (i % 5)}`)),
  );
  t.ok(
    burst.every((a) => a.startsWith("200 ")),
    "a burst of searches is answered 200",
  );
  t.ok(
    (await counter(srv, "leidex_shard_requests_total", { worker: w ?? "0" })) > sent,
    `the successor of worker ${w} takes search requests`,
  );
  t.equal((await srv.get("/health/ready")).status, 200, "the server is ready");
});

t.test("a front thread that crashes starts again, takes its share of connections, with the same answers", async (t) => {
  const front = await inspector.thread(FRONT_SCRIPT, 0);
  await inspector.evaluate(front, CRASH);
  const restarted = /front thread (\d) stopped; starting it again in \d+ ms/;
  const log = await logged(srv, restarted);
  const thread = restarted.exec(log)?.[1];
  t.ok(thread !== undefined, "the log says a front thread stopped and starts again");
  await inspector.thread(FRONT_SCRIPT, 1);
  const after = await eventually(srv, 2, (got) => got.every((a, i) => a === before[i]));
  t.same(after, before, "every answer after the crash, on fresh connections, is the answer from before it");
  // the metric's thread 0 is the main thread; front thread k is its thread k + 1
  const label = { thread: String(Number(thread ?? "0") + 1) };
  const received = await counter(srv, "leidex_front_requests_total", label);
  let more = await counter(srv, "leidex_front_requests_total", label);
  for (let i = 0; i < 40 && more <= received; i++) {
    await answers(srv, 1);
    more = await counter(srv, "leidex_front_requests_total", label);
  }
  t.ok(more > received, `the restarted thread ${thread} takes connections again (${received} → ${more})`);
  t.equal((await srv.get("/health")).status, 200, "and the server kept serving");
});
