// Bulk requests (1,000-LEI batch lookups, 1,000-row /v1/match and /reconcile batches) must not
// hold the front: a /health sent after a burst of them is answered before most of them, and every
// bulk answer is still whole and the same as when it runs alone. A client that goes away mid-batch
// stops its work. And every answer keyed by a client's ids keeps ids such as `__proto__`.

import t from "tap";
import { connect, type Socket } from "node:net";
import { sampleModel } from "./helpers/fixture.js";
import { startServer, type RunningServer } from "./helpers/server.js";

const entities = sampleModel().map((r) => r.entity);
const named = entities.filter((e) => e.legalName);

interface Answer {
  status: number;
  body: Buffer;
  /** place among the answers of the exchange, from 0 */
  order: number;
}

/** One request on its own connection, written once asked; the answer read by Content-Length. */
class Exchange {
  private readonly socket: Socket;
  private readonly connected: Promise<void>;
  readonly answer: Promise<Answer>;

  constructor(port: number, arrivals: { next: number }) {
    this.socket = connect({ host: "127.0.0.1", port });
    this.socket.setNoDelay(true);
    this.connected = new Promise((resolve, reject) => {
      this.socket.once("connect", resolve);
      this.socket.once("error", reject);
    });
    this.answer = new Promise((resolve, reject) => {
      let data = Buffer.alloc(0);
      this.socket.on("data", (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        const end = data.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = data.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
        if (data.length < end + 4 + length) return;
        resolve({ status: Number(head.slice(9, 12)), body: data.subarray(end + 4, end + 4 + length), order: arrivals.next++ });
        this.socket.destroy();
      });
      this.socket.on("error", reject);
      this.socket.on("close", () => reject(new Error("closed before the answer")));
    });
    this.answer.catch(() => {}); // a closed exchange is awaited only where it matters
  }

  ready(): Promise<void> {
    return this.connected;
  }

  /** Resolves once the request is handed to the kernel whole. */
  send(method: string, path: string, body?: string, type = "application/json"): Promise<void> {
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: x\r\n` +
      (body === undefined ? "" : `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`) +
      "\r\n";
    return new Promise((resolve) => this.socket.write(body === undefined ? head : head + body, () => resolve()));
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * `bodies` POSTed to `path` at once, each on its own connection, then a /health once every one
 * is sent: the answers, and the /health's place among them.
 */
async function burstThenHealth(server: RunningServer, path: string, bodies: string[]): Promise<{ answers: Answer[]; health: Answer }> {
  const arrivals = { next: 0 };
  const bulk = bodies.map(() => new Exchange(server.port, arrivals));
  const probe = new Exchange(server.port, arrivals);
  await Promise.all([...bulk, probe].map((e) => e.ready()));
  await Promise.all(bulk.map((e, i) => e.send("POST", path, bodies[i])));
  await probe.send("GET", "/health");
  const [health, ...answers] = await Promise.all([probe.answer, ...bulk.map((e) => e.answer)]);
  return { answers, health };
}

const post = (server: RunningServer, path: string, body: string): Promise<Response> =>
  fetch(server.base + path, { method: "POST", headers: { "content-type": "application/json" }, body });

let server: RunningServer;

t.before(async () => {
  server = await startServer(t, { rateLimit: 0 });
});

t.test("a /health sent after 40 batches of 1,000 LEIs is answered before most of them; each batch whole and right", async (t) => {
  // each batch: the sample's LEIs from its own offset, with an absent, a malformed and a lower-case one among them
  const pool = entities.map((e) => e.lei);
  const batches = Array.from({ length: 40 }, (_, k) => {
    const leis = Array.from({ length: 1000 }, (_, i) => pool[(k * 131 + i * 7) % pool.length]);
    leis[10] = "529900ZZZZZZZZZZZZ00";
    leis[500] = "not-an-lei";
    leis[999] = leis[999].toLowerCase();
    return leis;
  });
  const bodies = batches.map((leis) => JSON.stringify({ leis }));
  // what each batch answers alone, before the burst
  const alone: string[] = [];
  for (const body of bodies) alone.push(await (await post(server, "/v1/entities/batch", body)).text());

  const { answers, health } = await burstThenHealth(server, "/v1/entities/batch", bodies);
  t.equal(health.status, 200);
  t.ok(health.order < answers.length / 2, `the /health came back before most batches (${health.order} of ${answers.length} before it)`);
  t.same(
    answers.map((a) => a.status),
    bodies.map(() => 200),
  );
  t.ok(
    answers.every((a, k) => a.body.toString("utf8") === alone[k]),
    "every batch answered under the burst is byte for byte what it answers alone",
  );

  // and what it answers is the single lookups', row by row
  const first = JSON.parse(alone[0]) as { results: { lei: string; status: string; entity?: unknown; error?: string }[] };
  t.equal(first.results.length, 1000, "a row per LEI");
  const single = new Map<string, { status: number; text: string }>();
  for (const lei of new Set(batches[0])) {
    const r = await server.get(`/v1/entities/${encodeURIComponent(lei)}`);
    single.set(lei, { status: r.status, text: r.text });
  }
  const rows = alone[0].slice('{"results":['.length, alone[0].lastIndexOf("]"));
  const expected = batches[0]
    .map((lei) => {
      const s = single.get(lei)!;
      const head = `{"lei":${JSON.stringify(lei)},"status":`;
      if (s.status === 200) return `${head}"found","entity":${s.text}}`;
      return `${head}"${s.status === 404 ? "not_found" : "invalid"}","error":${JSON.stringify((JSON.parse(s.text) as { error: string }).error)}}`;
    })
    .join(",");
  t.ok(rows === expected, "each row is the single lookup's entity, or its reason, byte for byte");
});

/** Rows of the sample's names, from an offset: some with their country, some with a typo. */
function matchRows(offset: number, n: number): { name: string; country?: string }[] {
  return Array.from({ length: n }, (_, i) => {
    const e = named[(offset + i * 13) % named.length];
    const name = i % 5 === 4 ? e.legalName!.replace(/([a-z])([a-z])/i, "$2$1") : e.legalName!;
    return i % 2 === 0 && e.country ? { name, country: e.country } : { name };
  });
}

t.test("a /health sent after 6 match requests of 1,000 rows is answered before any of them; each whole and right", async (t) => {
  const bodies = Array.from({ length: 6 }, (_, k) => JSON.stringify({ rows: matchRows(k * 1000, 1000), limit: 3 }));
  const alone: string[] = [];
  for (const body of bodies) alone.push(await (await post(server, "/v1/match", body)).text());
  const { answers, health } = await burstThenHealth(server, "/v1/match", bodies);
  t.equal(health.status, 200);
  t.equal(health.order, 0, "the /health came back first");
  t.same(
    answers.map((a) => a.status),
    bodies.map(() => 200),
  );
  t.ok(
    answers.every((a, k) => a.body.toString("utf8") === alone[k]),
    "every match answered under the burst is byte for byte what it answers alone",
  );
  t.equal((JSON.parse(alone[0]) as { results: unknown[] }).results.length, 1000, "a result per row");
});

t.test("a /health sent after 6 reconcile batches of 1,000 queries is answered before any of them; each whole", async (t) => {
  const bodies = Array.from({ length: 6 }, (_, k) => {
    const queries: Record<string, object> = {};
    matchRows(k * 777, 1000).forEach((row, i) => {
      queries[`q${i}`] = { query: row.name, limit: 3, ...(row.country ? { properties: [{ pid: "country", v: row.country }] } : {}) };
    });
    return JSON.stringify({ queries });
  });
  const alone: string[] = [];
  for (const body of bodies) alone.push(await (await post(server, "/reconcile", body)).text());
  const { answers, health } = await burstThenHealth(server, "/reconcile", bodies);
  t.equal(health.status, 200);
  t.equal(health.order, 0, "the /health came back first");
  t.ok(
    answers.every((a, k) => a.status === 200 && a.body.toString("utf8") === alone[k]),
    "every reconcile batch answered under the burst is byte for byte what it answers alone",
  );
  t.equal(Object.keys(JSON.parse(alone[0]) as object).length, 1000, "a result per query");
});

/** A route's answers so far by status, from /metrics. */
async function answered(route: string): Promise<Map<number, number>> {
  const text = (await server.get("/metrics")).text;
  const counts = new Map<number, number>();
  for (const m of text.matchAll(/^leidex_http_requests_total\{route="([^"]+)",status="(\d+)"\} (\d+)$/gm)) {
    if (m[1] === route) counts.set(Number(m[2]), Number(m[3]));
  }
  return counts;
}

const sum = (counts: Map<number, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

t.test("clients that go away mid-batch stop their work: batch lookups and match requests", async (t) => {
  const pool = entities.map((e) => e.lei);
  const cases: [string, string, string[]][] = [
    [
      "entity-batch",
      "/v1/entities/batch",
      Array.from({ length: 60 }, (_, k) =>
        JSON.stringify({ leis: Array.from({ length: 1000 }, (_, i) => pool[(k * 17 + i) % pool.length]) }),
      ),
    ],
    ["entity-match", "/v1/match", Array.from({ length: 6 }, (_, k) => JSON.stringify({ rows: matchRows(k * 500 + 3, 1000) }))],
  ];
  for (const [route, path, bodies] of cases) {
    const before = await answered(route);
    const arrivals = { next: 0 };
    const bulk = bodies.map(() => new Exchange(server.port, arrivals));
    const probe = new Exchange(server.port, arrivals);
    await Promise.all([...bulk, probe].map((e) => e.ready()));
    await Promise.all(bulk.map((e, i) => e.send("POST", path, bodies[i])));
    // once a /health sent after them is answered, the server has them in hand: their clients leave
    await probe.send("GET", "/health");
    await probe.answer;
    for (const e of bulk) e.close();
    let counts = await answered(route);
    for (let i = 0; i < 600 && sum(counts) - sum(before) < bodies.length; i++) {
      await new Promise((r) => setTimeout(r, 50));
      counts = await answered(route);
    }
    const gone = (counts.get(499) ?? 0) - (before.get(499) ?? 0);
    const whole = (counts.get(200) ?? 0) - (before.get(200) ?? 0);
    t.equal(gone + whole, bodies.length, `${route}: every request is accounted for`);
    t.ok(
      gone > bodies.length / 2,
      `${route}: most were stopped when their clients left, counted 499 (${gone} of ${bodies.length}; ${whole} finished)`,
    );
  }
  const gauges = (await server.get("/metrics")).text;
  t.match(gauges, /^leidex_bulk_requests\{state="running"\} 0$/m, "no bulk request is left running");
  t.match(gauges, /^leidex_bulk_requests\{state="waiting"\} 0$/m, "nor waiting");
  t.equal((await server.get("/health")).status, 200, "and the server serves on");
});

t.test("ids such as __proto__ come back in every answer keyed by the client's ids", async (t) => {
  const ids = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "plain"];
  const name = named[0].legalName!;
  const queries = `{${ids.map((id) => `${JSON.stringify(id)}:{"query":${JSON.stringify(name)},"limit":1}`).join(",")}}`;
  const keysOf = (text: string): string[] => [...text.matchAll(/"((?:[^"\\]|\\.)*)":\{"result":/g)].map((m) => m[1]);

  const asJson = await post(server, "/reconcile", queries);
  t.equal(asJson.status, 200);
  t.same(keysOf(await asJson.text()), ids, "a JSON body: every id answered, in order");
  const asForm = await fetch(`${server.base}/reconcile`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ queries }).toString(),
  });
  t.same(keysOf(await asForm.text()), ids, "a form (as OpenRefine sends it): every id answered");
  const asQuery = await server.get(`/reconcile?queries=${encodeURIComponent(queries)}`);
  t.same(keysOf(asQuery.text), ids, "the query parameter: every id answered");
  const parsed = JSON.parse(asQuery.text) as Record<string, { result: { id: string }[] }>;
  t.ok(Object.prototype.hasOwnProperty.call(parsed, "__proto__"), "__proto__ is an id of the answer, not its prototype");
  t.equal(parsed.toString.result[0].id, named[0].lei, "each id gets its candidates");

  // batch lookups and match rows answer in request order: such inputs are rows like any other
  const batch = (await (await post(server, "/v1/entities/batch", JSON.stringify({ leis: ids }))).json()) as { results: { lei: string }[] };
  t.same(
    batch.results.map((r) => r.lei),
    ids,
    "batch rows for such inputs",
  );
  const match = (await (await post(server, "/v1/match", JSON.stringify({ rows: ids.map((id) => ({ name: id })) }))).json()) as {
    results: unknown[];
  };
  t.equal(match.results.length, ids.length, "match rows for such names");
});
