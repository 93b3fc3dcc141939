// The process and its operational endpoints: --help, bad flags, /health, /health/ready,
// /metrics, per-IP rate limiting with a small limit, SIGTERM draining.

import t from "tap";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { getPriority } from "node:os";
import { spawnSync } from "node:child_process";
import { metric, pMap, runLeidex, startServer, type Got } from "./helpers/server.js";
import { WARM_UP_MIN_RECORDS } from "../src/lei/warm-up.js";

const LIMIT = 5;
const srv = await startServer(t, { rateLimit: LIMIT, rateWindow: 60, shards: 2 });

t.test("--help prints usage and exits 0", async (t) => {
  const r = await runLeidex(["--help"]);
  t.equal(r.code, 0);
  for (const flag of ["--port", "--host", "--data-dir", "--source", "--shards", "--rate-limit", "--rate-window", "--help"]) {
    t.match(r.stdout, flag, `usage lists ${flag}`);
  }
  t.notMatch(r.stdout, /listening on/, "does not start serving");
});

t.test("bad flags exit 2 with a message", async (t) => {
  const cases: [string[], RegExp][] = [
    [["--nope"], /nope/],
    [["--port", "70000"], /port/],
    [["--shards", "0"], /shards/],
    [["--rate-limit", "-1"], /rate-limit/],
    [["stray-positional"], /stray-positional|positional|unexpected/i],
    [["--port"], /port/],
  ];
  await pMap(cases, 2, async ([args, message]) => {
    const r = await runLeidex(args);
    t.equal(r.code, 2, `${args.join(" ")} -> exit 2`);
    t.match(r.stderr, message, `${args.join(" ")}: says what is wrong`);
    t.match(r.stderr, /Usage/, `${args.join(" ")}: shows usage`);
  });
});

const lowerPriorityCheck = !existsSync("/proc/self/task")
  ? "no /proc here"
  : getPriority() > 14
    ? "already running at nice 15 or more"
    : false;
t.test("shard and MCP threads run at a lower priority than the front", { skip: lowerPriorityCheck }, async (t) => {
  const pid = srv.child.pid!;
  const niceOf = (tid: string): number => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ")[16]);
  const base = getPriority(); // the server inherits the test runner's
  const tids = readdirSync(`/proc/${pid}/task`);
  t.equal(niceOf(String(pid)), base, "the front (main thread) keeps the process's priority");
  const lowered = tids.filter((tid) => niceOf(tid) === base + 5);
  t.equal(lowered.length, 3, "each of the 2 shard threads and the MCP thread runs 5 nice levels lower");
  const builder = tids.filter((tid) => niceOf(tid) === base + 10);
  t.equal(builder.length, 1, "the shard worker that builds reloads runs 10 nice levels lower, below those answering requests");
});

/** GET from a given local source address (127.0.0.x), to be a different client IP. */
function getFrom(
  localAddress: string,
  path: string,
  port = srv.port,
): Promise<{ status: number; headers: Record<string, any>; body: any }> {
  return new Promise((res, rej) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, localAddress, agent: false }, (r) => {
      let text = "";
      r.setEncoding("utf8")
        .on("data", (c) => {
          text += c;
        })
        .on("end", () => {
          let body: any;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          res({ status: r.statusCode ?? 0, headers: r.headers, body });
        });
    });
    req.on("error", rej);
    req.end();
  });
}

t.test("/health, /health/ready and /metrics before any API traffic", async (t) => {
  const h = await srv.get("/health");
  t.equal(h.status, 200);
  t.equal(h.body?.status, "ok");
  const r = await srv.get("/health/ready");
  t.equal(r.status, 200, "ready once the sample is live");
  t.equal(r.body?.records, 6147);
  const m = await srv.get("/metrics");
  t.equal(m.status, 200);
  t.match(m.headers.get("content-type") ?? "", /^text\/plain/);
  for (const line of m.text.split("\n").filter((l) => l && !l.startsWith("#"))) {
    t.match(line, /^[a-zA-Z_:][\w:]*(\{[^}]*\})? -?[\d.e+]+$/, `exposition line: ${line.slice(0, 60)}`);
  }
  const slices = [0, 1].map((s) => metric(m.text, "leidex_slice_documents", { slice: String(s) }));
  t.ok(
    slices.every((n) => n !== null && n > 2000),
    `two slices of documents (${slices.join(", ")})`,
  );
  t.equal((slices[0] ?? 0) + (slices[1] ?? 0), 6147, "slice sizes add up to the records");
  t.equal(metric(m.text, "leidex_slice_documents", { slice: "2" }), null, "no third slice");
  t.equal(metric(m.text, "leidex_collection_documents"), 6147);
  t.equal(metric(m.text, "leidex_rate_limited_total"), null, "no rate-limit rejections yet");
  t.match(m.text, /^# TYPE leidex_load_failures_total counter$/m, "failed loads: a counter");
  t.equal(metric(m.text, "leidex_load_failures_total"), 0, "no failed load");
  t.notMatch(m.text, /^leidex_\w*_ms[_{ ]/m, "no metric in milliseconds: base units");
  for (const name of [
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "nodejs_heap_size_used_bytes",
    "nodejs_eventloop_lag_seconds",
  ]) {
    t.ok((metric(m.text, name) ?? -1) >= 0, `runtime metric ${name}`);
  }
  // each sample is one period of the sampling timer: an idle loop reads that period, not more
  const leastLag = metric(m.text, "nodejs_eventloop_lag_min_seconds") ?? -1;
  t.ok(leastLag >= 0 && leastLag < 0.05, `the least event-loop lag: its sampling period, not a stall (${leastLag} s)`);
  // promtool is Prometheus's own check; .ci/run installs it (Debian's prometheus package)
  const promtool = spawnSync("promtool", ["check", "metrics"], { input: m.text, encoding: "utf8" });
  if (promtool.error && process.env.CI !== "true") t.skip(`promtool not installed: ${promtool.error.message}`);
  else t.equal(promtool.status, 0, `promtool check metrics: clean ${promtool.stdout}${promtool.stderr}`);
  for (let i = 0; i < 8; i++) t.equal((await srv.get("/health")).status, 200, "health is never rate limited");
});

// A collection as small as the sample is not warmed up (test/loader.test.ts has one that is).
t.test("the bundled sample is served without a warm-up, and says so", async (t) => {
  const out = srv.stdout();
  t.match(out, /no warm-up: 6147 records are searched fast from the first request/);
  t.notMatch(out, /warmed up/);
  t.ok(WARM_UP_MIN_RECORDS > 6147, "the sample is under the threshold");
});

t.test("rate limit: the budget counts down, then 429 with Retry-After", async (t) => {
  const sent: Got[] = [];
  const paths = ["/v1/entities?q=bank", "/v1/entities/5493001KJTIIGC8Y1R12", "/v1/facets/country", "/v1/stats", "/v1/entities?nope=1"];
  for (const p of paths) sent.push(await srv.get(p));
  t.same(
    sent.map((r) => r.status),
    [200, 200, 200, 200, 400],
    "the first 5 requests are served (a 400 counts too)",
  );
  t.same(
    sent.map((r) => r.headers.get("x-ratelimit-limit")),
    Array(5).fill(String(LIMIT)),
    "X-RateLimit-Limit on each",
  );
  t.same(
    sent.map((r) => r.headers.get("x-ratelimit-remaining")),
    ["4", "3", "2", "1", "0"],
    "X-RateLimit-Remaining counts down",
  );

  const refused = await srv.get("/v1/entities?q=fund");
  t.equal(refused.status, 429, "the 6th request -> 429");
  t.type(refused.body?.error, "string", "with an error body");
  t.same(Object.keys(refused.body ?? {}), ["error"]);
  const retry = Number(refused.headers.get("retry-after"));
  t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After is whole seconds (${retry})`);
  t.ok(retry <= 12, "at most one window / limit = 12 s");
  t.equal(refused.headers.get("x-ratelimit-limit"), String(LIMIT));
  t.equal(refused.headers.get("x-ratelimit-remaining"), "0");
  t.equal(refused.headers.get("access-control-allow-origin"), "*", "CORS on a 429 too");
  t.match(refused.headers.get("access-control-expose-headers") ?? "", /Retry-After/i, "Retry-After readable by browsers");

  for (const p of ["/v1/entities/5493001KJTIIGC8Y1R12", "/v1/facets/status", "/v1/stats"]) {
    t.equal((await srv.get(p)).status, 429, `${p} shares the same per-IP budget`);
  }
  t.equal((await srv.get("/health")).status, 200, "/health is not limited");
  t.equal((await srv.get("/health/ready")).status, 200, "/health/ready is not limited");

  const other = await getFrom("127.0.0.2", "/v1/entities?q=fund");
  t.equal(other.status, 200, "another client IP has its own budget");
  t.equal(other.headers["x-ratelimit-remaining"], "4");

  const m = (await srv.get("/metrics")).text;
  t.equal(metric(m, "leidex_rate_limited_total") ?? 0, 4, "metrics count the 4 rejections");
  t.equal(metric(m, "leidex_http_requests_total", { route: "search", status: "429" }), 1, "requests counted by route and status (429)");
  t.equal(metric(m, "leidex_http_requests_total", { route: "search", status: "200" }), 2, "search 200s counted (one per IP)");
  t.equal(metric(m, "leidex_http_requests_total", { route: "search", status: "400" }), 1, "search 400 counted");
  t.equal(metric(m, "leidex_http_requests_total", { route: "entity", status: "200" }), 1);
  t.ok((metric(m, "leidex_http_requests_total", { route: "health", status: "200" }) ?? 0) >= 10, "health requests counted");
  t.ok((metric(m, "leidex_http_request_duration_seconds_count", { route: "search" }) ?? 0) >= 4, "latency histogram per route");

  // after Retry-After seconds a request is served again
  await new Promise((r) => setTimeout(r, retry * 1000 + 300));
  const again = await srv.get("/v1/entities?q=fund");
  t.equal(again.status, 200, "served again after Retry-After");
  t.equal(again.headers.get("x-ratelimit-remaining"), "0", "with one token, now spent");
});

// Requests that reach the server around the signal are answered in full (drain waits for a
// quiet moment before the shard pool goes), or the connection is refused.
t.test("requests in flight when SIGTERM arrives are served, not aborted", async (t) => {
  const own = await startServer(t, { rateLimit: 0, shards: 2 });
  const inflight = [3, 4, 5, 6].map((n) =>
    getFrom(`127.0.0.${n}`, "/v1/entities?q=holding%20company&limit=100&facets=country,jurisdiction", own.port),
  );
  await new Promise((r) => setTimeout(r, 5));
  own.child.kill("SIGTERM");
  const answers = await Promise.allSettled(inflight);
  t.equal(await own.exited, 0, "exit code 0");
  const summary = answers.map((a) =>
    a.status === "fulfilled" ? `${a.value.status} ${JSON.stringify(a.value.body).slice(0, 80)}` : `refused: ${(a.reason as Error).message}`,
  );
  t.ok(
    answers.every(
      (a) =>
        a.status === "rejected" ||
        (a.value.status === 200 && a.value.body.found > 0 && a.value.body.results.length === Math.min(100, a.value.body.found)),
    ),
    "each request is either served in full or refused",
    { summary },
  );
});

t.test("SIGTERM: exits 0 after answering what it received, then stops listening", async (t) => {
  const answered = await Promise.all([3, 4].map((n) => getFrom(`127.0.0.${n}`, "/v1/entities?q=holding%20company&limit=100")));
  t.same(
    answered.map((a) => a.status),
    [200, 200],
  );
  srv.child.kill("SIGTERM");
  const code = await srv.exited;
  t.equal(code, 0, "exit code 0");
  t.match(srv.stdout(), /SIGTERM/, "logs the signal");
  t.match(srv.stdout(), /stopped/, "logs that it stopped");
  const after = await srv.get("/health").then(
    () => "answered",
    () => "refused",
  );
  t.equal(after, "refused", "no longer listening");
});
