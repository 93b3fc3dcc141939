// HTTP served from several threads (--front-threads; src/http/front-threads.ts, src/front-thread.ts):
// one listen socket hands each new connection to the next thread in turn. Whatever the count the
// defaults or the flag choose, the answers are those of one thread, byte for byte; each thread
// takes its share of connections; the per-IP limit is one budget across threads; ETags, reloads,
// uploads, bodies, streamed exports and /metrics hold; and a write accepted on any thread
// survives kill -9.

import { request as httpRequest } from "node:http";
import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";
import t from "tap";
import { sampleModel } from "./helpers/fixture.js";
import { metric, SAMPLE_CSV, startServer, type RunningServer } from "./helpers/server.js";

const KEY = "front-threads-bootstrap-key-0123456789";
const model = sampleModel();
const lei = model[0].entity.lei;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on a connection of its own (no keep-alive pool): the acceptor hands each to the next thread. */
function fresh(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: opts.method ?? "GET", headers: opts.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const json = { "content-type": "application/json" };
const REQUESTS: { path: string; method?: string; headers?: Record<string, string>; body?: string }[] = [
  { path: "/v1/entities?q=bank" },
  { path: "/v1/entities?q=bnak&limit=3" },
  { path: "/v1/entities?q=holding%20gmbh&facets=country,status" },
  { path: `/v1/entities/${lei}` },
  { path: `/v1/entities/${lei.toLowerCase()}` },
  { path: "/v1/entities/529900SIW684OP07HP12" },
  { path: "/v1/entities/export?country=DE" },
  { path: "/v1/entities/batch", method: "POST", headers: json, body: JSON.stringify({ leis: [lei, "NOT-AN-LEI"] }) },
  { path: "/v1/entities/batch", method: "POST", headers: json, body: "{not json" },
  { path: "/v1/facets/country" },
  { path: "/v1/stats" },
  { path: "/no/such/route" },
  { path: "/v1/entities", method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "GET" } },
];

/** Every request's status and body (search timings taken out), each on a fresh connection, each asked twice so every thread answers it. */
async function answers(srv: RunningServer, threads: number): Promise<string[]> {
  const out: string[] = [];
  for (const r of REQUESTS)
    for (let i = 0; i < Math.max(2, threads); i++) {
      const a = await fresh(srv.port, r.path, r);
      out.push(`${r.method ?? "GET"} ${r.path} ${a.status} ${untimed(a.text)}`);
    }
  return out;
}

/** An answer without the figures that differ between loads and runs (timings). */
function untimed(text: string): string {
  return text.replace(/"(searchTimeMs|ingestSeconds)":[\d.]+/g, "");
}

async function perThread(srv: RunningServer, threads: number): Promise<number[]> {
  const text = (await srv.get("/metrics")).text;
  return Array.from({ length: threads }, (_, i) => metric(text, "leidex_front_requests_total", { thread: String(i) }) ?? -1);
}

const cores = availableParallelism();
const counts = [...new Set([1, 2, 3, cores])].sort((a, b) => a - b);
const baseline = await startServer(t, { shards: "auto", args: ["--front-threads", "1"] });
const expected = (await answers(baseline, 1)).filter((_, i) => i % 2 === 0);
await baseline.stop();

for (const threads of counts) {
  t.test(`${threads} front thread(s): the same answers, and every thread takes connections`, async (t) => {
    const srv = await startServer(t, { shards: "auto", args: threads === cores ? [] : ["--front-threads", String(threads)] });
    const got = await answers(srv, threads);
    const copies = Math.max(2, threads);
    for (let r = 0; r < REQUESTS.length; r++)
      for (let i = 0; i < copies; i++)
        t.equal(got[r * copies + i], expected[r], `${REQUESTS[r].method ?? "GET"} ${REQUESTS[r].path}, copy ${i + 1}`);

    const received = await perThread(srv, threads);
    t.equal(received.length, threads);
    t.ok(
      received.every((n) => n > 0),
      `each of the ${threads} thread(s) received requests: ${received.join(", ")}`,
    );
    const text = (await srv.get("/metrics")).text;
    t.equal(
      metric(text, "leidex_http_requests_total", { route: "search", status: "200" }),
      3 * copies,
      "/metrics counts every thread's searches",
    );
    t.equal(metric(text, "leidex_http_requests_total", { route: "entity", status: "200" }), 2 * copies, "and lookups, by status");
    t.equal(metric(text, "leidex_http_requests_total", { route: "entity-batch", status: "400" }), copies, "and relayed requests once");
  });
}

t.test("the per-IP limit is one budget across front threads", async (t) => {
  const threads = Math.max(3, cores);
  const srv = await startServer(t, { shards: "auto", rateLimit: 40, rateWindow: 3600, args: ["--front-threads", String(threads)] });
  const statuses: number[] = [];
  const remaining: number[] = [];
  for (let i = 0; i < 60; i++) {
    // lookups (answered by the thread that holds the connection) and stats (relayed to the main thread) alike
    const a = await fresh(srv.port, i % 3 === 2 ? "/v1/stats" : `/v1/entities/${lei}`);
    statuses.push(a.status);
    if (a.status === 200) remaining.push(Number(a.headers["x-ratelimit-remaining"]));
  }
  t.equal(statuses.filter((s) => s === 200).length, 40, "exactly the limit is served");
  t.equal(statuses.filter((s) => s === 429).length, 20, "the rest are refused");
  t.same(
    remaining,
    Array.from({ length: 40 }, (_, i) => 39 - i),
    "every thread spends from the same bucket",
  );
  const received = await perThread(srv, threads);
  t.ok(
    received.every((n) => n >= 60 / threads - 1),
    `the requests came in on every thread: ${received.join(", ")}`,
  );
  t.equal(metric((await srv.get("/metrics")).text, "leidex_rate_limited_total"), 20, "every thread's refusals are counted");
});

t.test("ETags, a reload by upload, and the answer cache agree on every thread", async (t) => {
  const threads = Math.max(3, cores);
  const srv = await startServer(t, { shards: "auto", args: ["--front-threads", String(threads), "--api-key", KEY] });
  const first = await fresh(srv.port, `/v1/entities?q=bank`);
  const tag = String(first.headers.etag);
  for (let i = 0; i < threads * 2; i++) {
    const a = await fresh(srv.port, "/v1/entities?q=bank", { headers: { "if-none-match": tag } });
    t.equal(a.status, 304, `connection ${i + 1}: 304 for the live tag`);
  }
  const upload = await fresh(srv.port, "/collections/lei/documents/import", {
    method: "POST",
    headers: { "x-typesense-api-key": KEY, "content-type": "text/csv" },
    body: readFileSync(SAMPLE_CSV),
  });
  t.equal(upload.status, 200, `the upload is taken, whichever thread holds it: ${upload.text}`);
  const name = (JSON.parse(upload.text) as { collection: string }).collection;
  for (let i = 0; i < threads * 2; i++) {
    const a = await fresh(srv.port, "/v1/entities?q=bank", { headers: { "if-none-match": tag } });
    t.equal(a.status, 200, `connection ${i + 1}: the old tag no longer matches`);
    t.match(String(a.headers.etag), name, "the new collection's tag");
    t.equal(untimed(a.text), untimed(first.text), "the same records, the same page");
  }
});

t.test("a key created over any thread survives kill -9", async (t) => {
  const threads = Math.max(3, cores);
  const srv = await startServer(t, { shards: "auto", args: ["--front-threads", String(threads), "--api-key", KEY] });
  const ids: number[] = [];
  for (let i = 0; i < threads * 2; i++) {
    const a = await fresh(srv.port, "/keys", {
      method: "POST",
      headers: { "x-typesense-api-key": KEY, ...json },
      body: JSON.stringify({ description: `key ${i}`, actions: ["documents:search"], collections: ["lei"] }),
    });
    t.equal(a.status, 201, `key ${i}: created (${a.text})`);
    ids.push((JSON.parse(a.text) as { id: number }).id);
  }
  await srv.kill9();
  const again = await startServer(t, {
    shards: "auto",
    dataDir: srv.dataDir,
    args: ["--front-threads", String(threads), "--api-key", KEY],
  });
  const listed = await fresh(again.port, "/keys", { headers: { "x-typesense-api-key": KEY } });
  const kept = (JSON.parse(listed.text) as { keys: { id: number }[] }).keys.map((k) => k.id);
  t.same(
    ids.filter((id) => !kept.includes(id)),
    [],
    "every key is still there",
  );
});
