// The front as an outsider meets it: request heads uWS cannot serve, ambiguous framing,
// pipelining, bodies sent without a key or never finished, wrong media types, proxies and
// query strings that are not what they seem. Every case gets an answer at once.

import t from "tap";
import { connect } from "node:net";
import { startServer, type RunningServer } from "./helpers/server.js";

const KEY = "front-hardening-bootstrap-key";
const OPERATOR = "front-hardening-operator-key";

interface Exchange {
  text: string;
  closed: boolean;
  ms: number;
}

/** Writes `parts` (a gap between them) on one connection; resolves at close or after `waitMs`. */
function exchange(port: number, parts: (string | Buffer)[], waitMs = 3000, gapMs = 50): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ host: "127.0.0.1", port });
    let text = "";
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ text, closed, ms: Date.now() - started });
    };
    socket.on("connect", async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        socket.write(part);
        await new Promise((r) => setTimeout(r, gapMs));
      }
    });
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    setTimeout(() => finish(false), waitMs);
  });
}

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const statuses = (text: string): number[] => [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));

let srv: RunningServer;

t.before(async () => {
  srv = await startServer(t, {
    args: ["--api-key", KEY, "--operator-key", OPERATOR, "--trust-proxy", "127.0.0.1", "--rate-limit", "3", "--cache-mb", "0"],
    env: { LEIDEX_BODY_BUDGET_BYTES: "300000", LEIDEX_BODY_DEADLINE_SECONDS: "2" },
  });
});

t.test("request heads uWS cannot serve are answered at once and the connection closed", async (t) => {
  const heads: Record<string, string> = {
    "HTTP/1.0 (nginx's default towards upstreams)": "GET /health HTTP/1.0\r\n\r\n",
    "HTTP/1.0 with a Host": "GET /health HTTP/1.0\r\nHost: x\r\n\r\n",
    "bare LF line ends": "GET /health HTTP/1.1\nHost: x\n\n",
    "an obs-fold continuation line": "GET /health HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n",
    "an absolute-form target": "GET http://x/health HTTP/1.1\r\nHost: x\r\n\r\n",
    "a NUL in a header value": "GET /health HTTP/1.1\r\nHost: x\r\nX-A: b\0c\r\n\r\n",
    "two Host headers": "GET /health HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
  };
  for (const [name, head] of Object.entries(heads)) {
    const r = await exchange(srv.port, [head]);
    t.ok(r.closed, `${name}: the connection is closed (not left to the idle timeout)`);
    const status = statusOf(r.text);
    t.ok(status >= 400 && status < 600, `${name}: answered ${status}`);
  }
  const many = "GET /health HTTP/1.1\r\nHost: x\r\n" + Array.from({ length: 60 }, (_, i) => `X-H${i}: v\r\n`).join("") + "\r\n";
  const r = await exchange(srv.port, [many], 1000);
  t.equal(statusOf(r.text), 200, "60 header lines are served");
  t.equal((await srv.get("/health")).status, 200, "and the server keeps serving");
});

t.test("pipelined requests answered synchronously come back in order; Connection: close is honoured", async (t) => {
  // uWS closes a connection on which a request arrives while an earlier answer is still pending
  // (asynchronous pipelining); docs/http.md says so. Synchronous answers pipeline.
  const get = (path: string, extra = ""): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
  const r = await exchange(srv.port, [get("/health") + get("/openapi.json") + get("/health/ready", "Connection: close\r\n")], 5000);
  t.same(statuses(r.text), [200, 200, 200], "three answers");
  const health = r.text.indexOf('"status"');
  const openapi = r.text.indexOf('"openapi"');
  t.ok(health > 0 && openapi > health, "in the order asked");
  t.ok(r.closed, "Connection: close on the last request ends the connection");
  // a lookup is answered on the front at once (engine/lei-table.ts), so lookups pipeline too
  const client = "X-Forwarded-For: 198.51.100.2\r\n"; // an address of its own: the limit is 3 requests
  const [a, b] = (await srv.json("/v1/entities?q=bank&limit=2", { headers: { "X-Forwarded-For": "198.51.100.2" } })).results.map(
    (e: { lei: string }) => e.lei,
  );
  const lookups = await exchange(
    srv.port,
    [get(`/v1/entities/${b}`, client) + get(`/v1/entities/${a}`, `${client}Connection: close\r\n`)],
    5000,
  );
  t.same(statuses(lookups.text), [200, 200], "two pipelined lookups, two answers");
  t.ok(
    lookups.text.indexOf(`"lei":"${b}"`) > 0 && lookups.text.indexOf(`"lei":"${a}"`) > lookups.text.indexOf(`"lei":"${b}"`),
    "in the order asked",
  );
  const search = await exchange(srv.port, [get("/v1/entities?q=deutsche", "X-Forwarded-For: 198.51.100.1\r\nConnection: close\r\n")], 5000);
  t.equal(statusOf(search.text), 200, "an asynchronous answer with Connection: close");
  t.ok(search.closed, "ends the connection too");
});

t.test("ambiguous framing is refused, legal framing accepted (RFC 9112)", async (t) => {
  const post = (headers: string, body: string): string =>
    `POST /v1/tenants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OPERATOR}\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;
  const twoLengths = await exchange(srv.port, [post("Content-Length: 12\r\nContent-Length: 13\r\n", '{"name":"a"}')]);
  t.equal(statusOf(twoLengths.text), 400, "two different Content-Length headers: 400");
  t.match(twoLengths.text, /conflicting Content-Length/);
  t.ok(twoLengths.closed, "and the connection is closed");
  const sameTwice = await exchange(srv.port, [post("Content-Length: 12\r\nContent-Length: 12\r\nConnection: close\r\n", '{"name":"a"}')]);
  t.equal(statusOf(sameTwice.text), 201, "the same Content-Length twice is accepted");
  const chunkedIdentity = await exchange(srv.port, [post("Transfer-Encoding: chunked, identity\r\n", 'c\r\n{"name":"a"}\r\n0\r\n\r\n')]);
  t.equal(statusOf(chunkedIdentity.text), 501, "Transfer-Encoding: chunked, identity: 501");
  t.ok(chunkedIdentity.closed);
  const both = await exchange(srv.port, [post("Transfer-Encoding: chunked\r\nContent-Length: 12\r\n", 'c\r\n{"name":"a"}\r\n0\r\n\r\n')]);
  t.ok([400, 501].includes(statusOf(both.text)), `Transfer-Encoding beside Content-Length: ${statusOf(both.text)}`);
  t.ok(both.closed);
  const chunked = await exchange(srv.port, [post("Transfer-Encoding: chunked\r\nConnection: close\r\n", 'c\r\n{"name":"a"}\r\n0\r\n\r\n')]);
  t.equal(statusOf(chunked.text), 201, "a plain chunked body is accepted");
});

t.test("a body sent without a valid key is not kept: 401 at once; a short rest is read and dropped, a long one closes", async (t) => {
  const head = (length: number): string =>
    `POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const r = await exchange(srv.port, [head(1_000_000), Buffer.alloc(1000, 0x20), Buffer.alloc(1000, 0x20)], 1500, 200);
  t.equal(statusOf(r.text), 401, "401 before the body is complete");
  t.notOk(r.closed, "the connection stays for the declared rest (1 MB): closing now would reset it under the sender");
  const served = await exchange(
    srv.port,
    [head(3000) + "x".repeat(1000), "x".repeat(2000) + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"],
    1500,
    200,
  );
  t.same(statuses(served.text), [401, 200], "once the rest is in, the same connection serves the next request");
  const long = await exchange(srv.port, [head(20_000_000), Buffer.alloc(1000, 0x20)], 3000);
  t.equal(statusOf(long.text), 401);
  t.ok(long.closed, "a declared rest over 8 MiB is not read: the connection is closed");
  const chunked = await exchange(
    srv.port,
    [
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n" +
        "x".repeat(1000),
    ],
    3000,
  );
  t.equal(statusOf(chunked.text), 401);
  t.ok(chunked.closed, "nor is a chunked rest, of unknown length");
  const wrong = await exchange(
    srv.port,
    ["POST /keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"],
    1500,
  );
  t.equal(statusOf(wrong.text), 401, "the keyed API too");
});

t.test("a body over its cap is answered 413, not reset, with Node's fetch as the client", async (t) => {
  const body = "x".repeat(2_000_000);
  const seen: Record<string, number> = {};
  for (let i = 0; i < 10; i++) {
    const outcome = await fetch(`http://127.0.0.1:${srv.port}/v1/events`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: `Bearer ${OPERATOR}` },
    }).then(
      async (r) => `${r.status} ${JSON.stringify(await r.json())}`,
      (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
    );
    seen[outcome] = (seen[outcome] ?? 0) + 1;
  }
  t.same(seen, { '413 {"error":"request body larger than 1048576 bytes"}': 10 }, "every one a 413 in the area's shape");
});

t.test("bodies held in memory share one budget; a body has a deadline", async (t) => {
  // the server runs with a 300,000-byte budget and a 2 s deadline
  const head = (length: number): string =>
    `POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OPERATOR}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const holders = [
    exchange(srv.port, [head(900_000), Buffer.alloc(200_000, 0x20)], 4000),
    exchange(srv.port, [head(900_000), Buffer.alloc(200_000, 0x20)], 4000),
  ];
  const [a, b] = await Promise.all(holders);
  const answers = [statusOf(a.text), statusOf(b.text)].sort();
  t.same(answers, [408, 503], "one body over the shared budget is refused 503, the other times out 408");
  t.match(a.text + b.text, /Retry-After: 1/i, "the 503 says when to retry");
  t.ok([a, b].find((x) => statusOf(x.text) === 408)?.closed, "the slow body's connection is closed");
  const ok = await srv.get("/v1/tenants", { headers: { authorization: `Bearer ${OPERATOR}` } });
  t.equal(ok.status, 200, "and the server keeps serving");
});

t.test("JSON routes refuse other media types with 415 in their area's shape", async (t) => {
  const keyed = await srv.get("/keys", {
    method: "POST",
    headers: { "x-typesense-api-key": KEY, "content-type": "text/plain" },
    body: '{"actions":["*"],"collections":["*"]}',
  });
  t.equal(keyed.status, 415);
  t.type(keyed.body?.message, "string", "Typesense's {message}");
  const webhooks = await srv.get("/v1/tenants", {
    method: "POST",
    headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/x-www-form-urlencoded" },
    body: "name=x",
  });
  t.equal(webhooks.status, 415);
  t.type(webhooks.body?.error, "string", "area C's {error}");
  const json = await srv.get("/v1/tenants", {
    method: "POST",
    headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/json; charset=utf-8" },
    body: '{"name":"json"}',
  });
  t.equal(json.status, 201, "application/json with a charset is accepted");
});

t.test("--trust-proxy: X-Forwarded-For names the client only from a trusted proxy", async (t) => {
  const from = (client: string): Promise<number> =>
    srv.get("/v1/stats", { headers: { "x-forwarded-for": `${client}, 127.0.0.1` } }).then((r) => r.status);
  const first = [await from("203.0.113.7"), await from("203.0.113.7"), await from("203.0.113.7"), await from("203.0.113.7")];
  t.same(first, [200, 200, 200, 429], "one client behind the proxy runs out of its own budget (3 a window)");
  t.equal(await from("203.0.113.8"), 200, "while another client behind the same proxy is served");
});

t.test("query strings that are not what they seem", async (t) => {
  const proto = await srv.get("/v1/entities?toString=1", { headers: { "x-forwarded-for": "192.0.2.1" } });
  t.equal(proto.status, 400);
  t.match(proto.body?.error, /unknown parameter 'toString'/, "an unknown parameter, not one given twice");
  const badUtf8 = await srv.get("/v1/entities?q=%C0%AF", { headers: { "x-forwarded-for": "192.0.2.2" } });
  t.equal(badUtf8.status, 400, "invalid UTF-8 in q is a 400");
  t.match(badUtf8.body?.error, /UTF-8/);
  const replacement = await srv.get("/v1/entities?q=%EF%BF%BD", { headers: { "x-forwarded-for": "192.0.2.3" } });
  t.equal(replacement.status, 200, "a real U+FFFD is a normal search");
  const keyed = await srv.get("/collections/lei/documents/search?q=%C0%AF&query_by=legalName", { headers: { "x-typesense-api-key": KEY } });
  t.equal(keyed.status, 400, "so is invalid UTF-8 in the keyed API's q");
  t.match(keyed.body?.message, /UTF-8/, "in its {message} shape");
  const exported = await srv.get("/collections/lei/documents/export?filter_by=country:%FF", { headers: { "x-typesense-api-key": KEY } });
  t.equal(exported.status, 400, "and in an export's filter_by");
});
