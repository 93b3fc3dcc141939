// MCP floods and MCP threads that fail. The MCP SDK's work must not hold up the front: while a
// flood of MCP calls waits, /health and a /v1 lookup sent after all of it are answered first,
// and every MCP call still gets its right answer. An MCP thread that crashes or hangs (made to,
// from outside, through the Node inspector the server runs with) is replaced: the calls waiting
// on it are answered 503 in JSON-RPC's shape, never left hanging, a stuck thread holds no more
// than its bound of waiting calls, and the next call is served.

import t, { type Test } from "tap";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Inspector } from "./helpers/inspector.js";
import { metric, startServer, waitFor } from "./helpers/server.js";

const srv = await startServer(t, {
  args: ["--mcp-threads", "1"],
  // the inspector on a free port: the test reaches the MCP thread through it, as an operator could
  env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --inspect=127.0.0.1:0` },
});

/** The bound of calls waiting on one MCP thread (src/mcp/mcp-threads.ts) */
const MAX_WAITING = 1024;
const MCP_SCRIPT = /\/workers\/mcp\.js$/;
const QUERIES = ["bank", "fund", "capital", "holding", "trust"];

// ---------------------------------------------------------------- raw HTTP, one connection per request

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** the order in which answers completed, across all connections */
  seq: number;
}

let answered = 0;

/** Sends one request on a connection of its own; `sent` resolves once it is all written, `answer` when its answer is complete. */
function oneShot(request: string): { sent: Promise<void>; answer: Promise<Answer> } {
  let sent!: () => void;
  const written = new Promise<void>((resolve) => (sent = resolve));
  const answer = new Promise<Answer>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: srv.port });
    let text = "";
    socket.setEncoding("latin1");
    socket.setTimeout(60_000, () => socket.destroy(new Error("no answer within 60 s")));
    socket.on("error", (err) => {
      sent();
      reject(err);
    });
    socket.write(request, () => sent());
    socket.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = text.slice(0, end).split("\r\n");
      const headers = new Map(
        head.slice(1).map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      const length = Number(headers.get("content-length") ?? 0);
      if (text.length < end + 4 + length) return;
      socket.destroy();
      const body = Buffer.from(text.slice(end + 4, end + 4 + length), "latin1").toString("utf8");
      resolve({ status: Number(head[0].split(" ")[1]), headers, body, seq: ++answered });
    });
  });
  return { sent: written, answer };
}

const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

function mcpPost(message: object): string {
  const body = JSON.stringify(message);
  return (
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
    `MCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

const initialize = (id: number): string =>
  mcpPost({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
  });
const search = (id: number, query: string): string =>
  mcpPost({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "search_legal_entities", arguments: { query, limit: 100 } } });

/** A SearchPage without its timing, the one field two runs of one query may differ in. */
function untimed(page: unknown): unknown {
  const { searchTimeMs: _ignored, ...rest } = page as Record<string, unknown>;
  return rest;
}

/** What each query's search_legal_entities call must return: GET /v1/entities's page. */
const expected = new Map<string, string>();
for (const q of QUERIES) {
  const page = await srv.json(`/v1/entities?q=${q}&limit=100`);
  expected.set(q, JSON.stringify(untimed(page)));
}
const LEI = (await srv.json(`/v1/entities?q=bank&limit=1`)).results[0].lei as string;

/** Why an MCP answer is not the right one for its call ("" when it is). */
function wrongAnswer(a: Answer, id: number, query: string | null): string {
  let body: {
    id?: unknown;
    result?: { protocolVersion?: string; serverInfo?: { name?: string }; structuredContent?: unknown; isError?: boolean };
  };
  try {
    body = JSON.parse(a.body);
  } catch {
    return `status ${a.status}, not JSON: ${a.body.slice(0, 100)}`;
  }
  if (a.status !== 200) return `status ${a.status}: ${a.body.slice(0, 200)}`;
  if (body.id !== id) return `id ${String(body.id)} answers call ${id}`;
  if (query === null)
    return body.result?.protocolVersion === "2025-11-25" && body.result.serverInfo?.name === "leidex" ? "" : a.body.slice(0, 200);
  if (body.result?.isError) return `isError: ${a.body.slice(0, 200)}`;
  return JSON.stringify(untimed(body.result?.structuredContent)) === expected.get(query) ? "" : `another page for '${query}'`;
}

/** Why an answer is not the 503 an MCP call gets when it cannot be served ("" when it is). */
function wrongRefusal(a: Answer, id: number): string {
  if (a.status !== 503) return `status ${a.status}`;
  if (!/^\d+$/.test(a.headers.get("retry-after") ?? "")) return "no Retry-After";
  const body = JSON.parse(a.body) as { jsonrpc?: string; id?: unknown; error?: { code?: number; message?: string } };
  if (body.jsonrpc !== "2.0" || body.error?.code !== -32000 || typeof body.error.message !== "string")
    return `not a JSON-RPC error: ${a.body}`;
  return body.id === id ? "" : `id ${String(body.id)} for call ${id}`;
}

function tally(t: Test, what: string, problems: string[]): void {
  const wrong = problems.filter((p) => p !== "");
  t.equal(wrong.length, 0, `${what}: every answer is right`, { examples: wrong.slice(0, 5) });
}

/** The server's log once it has a line matching `pattern` (its pipe may lag behind the answers); "" after 10 s. */
async function logged(pattern: RegExp): Promise<string> {
  for (let i = 0; i < 200 && !pattern.test(srv.stdout()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return srv.stdout();
}

async function restarts(): Promise<number | null> {
  return metric((await srv.get("/metrics")).text, "leidex_mcp_thread_restarts_total");
}

// ---------------------------------------------------------------- the tests

t.test("a flood of MCP calls: /health and /v1 answer before it, and every MCP call is answered right", async (t) => {
  answered = 0;
  const calls: { id: number; query: string | null; shot: ReturnType<typeof oneShot> }[] = [];
  for (let i = 0; i < 600; i++) {
    calls.push({ id: 2 * i, query: null, shot: oneShot(initialize(2 * i)) });
    const query = QUERIES[i % QUERIES.length];
    calls.push({ id: 2 * i + 1, query, shot: oneShot(search(2 * i + 1, query)) });
  }
  await Promise.all(calls.map((c) => c.shot.sent));
  // sent after every MCP call was written
  const health = oneShot(get("/health"));
  const lookup = oneShot(get(`/v1/entities/${LEI}`));
  const [h, l] = await Promise.all([health.answer, lookup.answer]);
  const answers = await Promise.all(calls.map((c) => c.shot.answer));
  t.equal(h.status, 200, "/health answers 200");
  t.equal(l.status, 200, "the /v1 lookup answers 200");
  t.equal(JSON.parse(l.body).lei, LEI, "with the entity");

  const served = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  tally(
    t,
    `${served.length} MCP calls served`,
    calls.map((c, i) => (answers[i].status === 200 ? wrongAnswer(answers[i], c.id, c.query) : "")),
  );
  tally(
    t,
    `${refused.length} MCP calls refused (more than ${MAX_WAITING} waiting)`,
    calls.map((c, i) => (answers[i].status === 200 ? "" : wrongRefusal(answers[i], c.id))),
  );
  t.ok(served.length >= Math.min(calls.length, MAX_WAITING), `at least ${MAX_WAITING} of the calls are served (${served.length})`);
  const before = (a: Answer): number => served.filter((s) => s.seq < a.seq).length;
  t.ok(before(h) < served.length / 2, `/health answered before most MCP calls were (after ${before(h)} of ${served.length})`);
  t.ok(before(l) < served.length / 2, `the /v1 lookup answered before most MCP calls were (after ${before(l)} of ${served.length})`);
});

t.test("an MCP thread that crashes, then one that hangs, is replaced; the calls waiting on it are answered", async (t) => {
  const inspector = await Inspector.of(srv.stderr());
  t.teardown(() => inspector.close());
  t.equal(await restarts(), 0, "no MCP thread has been replaced yet");

  // 1. the thread is kept busy, then throws an uncaught error, as a bug would. Files, not a timer,
  // say when: the test sends its calls once the thread is busy, and has it throw once all of them
  // wait on it, so that the calls that get a 503 are exactly the ones sent.
  const signals = mkdtempSync(join(tmpdir(), "leidex-mcp-crash-"));
  t.teardown(() => rmSync(signals, { recursive: true, force: true }));
  const busy = join(signals, "busy");
  const go = join(signals, "go");
  const first = await inspector.thread(MCP_SCRIPT, 0);
  // its reply is not awaited: the thread's own file says when it is busy
  void inspector.evaluate(
    first,
    `setTimeout(() => {
      const fs = process.getBuiltinModule("node:fs");
      const nap = new Int32Array(new SharedArrayBuffer(4));
      const end = Date.now() + 8000;
      fs.writeFileSync(${JSON.stringify(busy)}, "");
      while (!fs.existsSync(${JSON.stringify(go)}) && Date.now() < end) Atomics.wait(nap, 0, 0, 5);
      throw new Error("crashed through the inspector");
    }, 0); "armed"`,
  );
  await waitFor("the MCP thread to be busy", () => existsSync(busy), 10_000, 20);
  const during = Array.from({ length: 20 }, (_, i) => ({ id: 10_000 + i, shot: oneShot(initialize(10_000 + i)) }));
  await waitFor(
    "every call to wait on it",
    async () => metric((await srv.get("/metrics")).text, "leidex_mcp_requests_waiting") === during.length,
    10_000,
    20,
  );
  writeFileSync(go, "");
  const crashAnswers = await Promise.all(during.map((c) => c.shot.answer));
  tally(
    t,
    "the calls waiting on the thread when it died are answered 503",
    during.map((c, i) => wrongRefusal(crashAnswers[i], c.id)),
  );
  const exited = /mcp thread 0 exited \(code 1\); 20 requests waiting on it were answered 503/;
  t.match(await logged(exited), exited, "the log says so");
  const next = oneShot(search(10_100, "bank"));
  t.equal(wrongAnswer(await next.answer, 10_100, "bank"), "", "the next call is served, by the new thread");
  t.equal(await restarts(), 1, "leidex_mcp_thread_restarts_total counts the crash");

  // 2. the new thread hangs for good: at most MAX_WAITING calls wait on it, then it is replaced
  const second = await inspector.thread(MCP_SCRIPT, 1);
  await inspector.evaluate(second, `setTimeout(() => { for (;;); }, 0); "armed"`);
  const stuck = Array.from({ length: MAX_WAITING + 50 }, (_, i) => ({ id: 20_000 + i, shot: oneShot(initialize(20_000 + i)) }));
  const stuckAnswers = await Promise.all(stuck.map((c) => c.shot.answer));
  tally(
    t,
    "calls sent to a hung thread",
    stuck.map((c, i) => wrongRefusal(stuckAnswers[i], c.id)),
  );
  const tooMany = stuckAnswers.filter((a) => JSON.parse(a.body).error.message.includes("too many MCP requests are waiting"));
  t.equal(tooMany.length, 50, `the calls beyond ${MAX_WAITING} waiting are refused at once`);
  t.ok(
    Math.max(...tooMany.map((a) => a.seq)) < Math.min(...stuckAnswers.filter((a) => !tooMany.includes(a)).map((a) => a.seq)),
    "before the waiting calls are answered",
  );
  const hung = /mcp thread 0 has answered nothing for \d+ s with 1024 requests waiting: replacing it/;
  t.match(await logged(hung), hung, "the log says the thread hung");
  const after = oneShot(initialize(30_000));
  t.equal(wrongAnswer(await after.answer, 30_000, null), "", "the next call is served");
  t.equal(await restarts(), 2, "leidex_mcp_thread_restarts_total counts the hung thread");
  t.equal((await srv.get("/health")).status, 200, "and the server kept serving");
});
