// Area C hardening (issue 20, items 6, 13, 14, 16, 21, 22, 24): SSRF spellings of loopback,
// control characters in receiver URLs, 405 for other methods, the response snippet capped in
// bytes, a full state.db answering 503 (a real SQLITE_FULL through PRAGMA max_page_count), the
// bounded intake queue and the pending-backlog caps, per-endpoint connection pools, and clock
// steps that must not prune or disable early. Checks behaviour only, never timing thresholds.

import t from "tap";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CA_FILE, RECEIVER_HOST, startReceiver } from "./helpers/webhook-receiver.js";
import { ROOT, startServer, tempDir, type RunningServer } from "./helpers/server.js";

process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
const SERVER_ARGS = ["--webhook-allow-hosts", RECEIVER_HOST, "--webhook-ca-file", CA_FILE, "--webhook-timeout", "1", "--dispatchers", "1", "--shards", "1"];

interface Res { status: number; body: any; text: string; headers: Headers }
async function api(srv: RunningServer, method: string, path: string, key: string | null, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(srv.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let parsed: any;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

const operatorKeyOf = (srv: RunningServer): string => readFileSync(join(srv.dataDir, "operator-key"), "utf8").trim();
async function mkTenant(srv: RunningServer, op: string, name: string): Promise<{ id: string; key: string }> {
  const tn = await api(srv, "POST", "/v1/tenants", op, { name });
  const k = await api(srv, "POST", `/v1/tenants/${tn.body.id}/keys`, op);
  return { id: tn.body.id, key: k.body.key };
}
let evSeq = 0;
const events = (tenant: string, n: number, type = "queued"): Record<string, unknown>[] =>
  Array.from({ length: n }, () => { const i = ++evSeq; return { id: `hev-${process.pid}-${i}`, tenant_id: tenant, message_id: `hm-${i}`, type, recipient: `r${i}@example.com`, timestamp: Math.floor(Date.now() / 1000) }; });

const srv = await startServer(t, { shards: 1, args: SERVER_ARGS });
const receiver = await startReceiver(t);
const OP = operatorKeyOf(srv);
const A = await mkTenant(srv, OP, "hard-a");

t.test("item 13: every IPv6 spelling of a private IPv4 address is refused at creation and at connect", async (t) => {
  const { isGlobalAddress, embeddedV4, UrlGuard } = await import(join(ROOT, "dist/src/webhooks/url-guard.js"));
  for (const host of ["[::127.0.0.1]", "[::ffff:0:127.0.0.1]", "[::ffff:127.0.0.1]", "[::7f00:1]", "[::ffff:0:7f00:1]", "[64:ff9b::127.0.0.1]", "[64:ff9b::a00:1]",
    "[::ffff:0:10.0.0.1]", "[::169.254.169.254]", "[2002:7f00:1::1]", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", "[64:ff9b:1::808:808]"]) {
    const r = await api(srv, "POST", "/v1/webhooks", A.key, { url: `https://${host}/hook`, event_types: ["queued"] });
    t.equal(r.status, 400, `${host} refused at creation`);
    t.match(r.body?.error, /non-public/);
  }
  // at connect, the resolver's answers go through the same check
  for (const a of ["::7f00:1", "::ffff:0:7f00:1", "64:ff9b::7f00:1", "::ffff:0:a00:1"]) t.notOk(isGlobalAddress(a), `${a} is not global`);
  t.equal(embeddedV4("::ffff:0:7f00:1"), "127.0.0.1");
  t.equal(embeddedV4("64:ff9b::808:808"), "8.8.8.8");
  t.ok(isGlobalAddress("64:ff9b::808:808"), "NAT64 of a public address is judged by that address");
  t.ok(isGlobalAddress("::ffff:8.8.8.8"));
  t.ok(isGlobalAddress("2606:4700::1111"));
  const guard = new UrlGuard([]);
  const fake = (address: string) => (_h: string, _o: object, cb: (err: Error | null, list: { address: string; family: number }[]) => void) => cb(null, [{ address, family: 6 }]);
  for (const a of ["::7f00:1", "::ffff:0:7f00:1"]) {
    const err = await new Promise<Error | null>((res) => guard.lookupFor(fake(a) as never)("evil.example.com", { all: true }, (e: Error | null) => res(e)));
    t.match(err?.message, /blocked/, `a name resolving to ${a} is refused at connect`);
  }
});

t.test("item 14: control characters in receiver URLs are refused; other methods are 405 with Allow", async (t) => {
  for (const url of [`${receiver.base}/a\r\nX-Injected: 1`, `${receiver.base}/a\nb`, `${receiver.base}/a\tb`, `${receiver.base}/a\u0000b`]) {
    const r = await api(srv, "POST", "/v1/webhooks", A.key, { url, event_types: ["queued"] });
    t.equal(r.status, 400, `webhook ${JSON.stringify(url)} refused`);
    t.match(r.body?.error, /control characters/);
    const ir = await api(srv, "POST", `/v1/tenants/${A.id}/inbound-routes`, OP, { match: "*", url });
    t.equal(ir.status, 400, `inbound route ${JSON.stringify(url)} refused`);
  }
  const ok = await api(srv, "POST", "/v1/webhooks", A.key, { url: `${receiver.base}/ctl`, event_types: ["queued"] });
  t.equal(ok.status, 201);
  t.equal((await api(srv, "PATCH", `/v1/webhooks/${ok.body.id}`, A.key, { url: `${receiver.base}/x\r\ny` })).status, 400, "PATCH too");
  t.equal((await api(srv, "GET", `/v1/webhooks/${ok.body.id}`, A.key)).body.url, `${receiver.base}/ctl`, "nothing stored");

  const head = await fetch(`${srv.base}/v1/webhooks`, { method: "HEAD", headers: { authorization: `Bearer ${A.key}` } });
  t.equal(head.status, 405, "HEAD /v1/webhooks");
  t.equal(head.headers.get("allow"), "POST, GET");
  const put = await api(srv, "PUT", "/v1/webhooks", A.key, {});
  t.equal(put.status, 405);
  t.match(put.body, { error: /allowed: POST, GET/ });
  t.equal((await fetch(`${srv.base}/v1/tenants`, { method: "HEAD" })).status, 405, "HEAD /v1/tenants");
  t.equal((await fetch(`${srv.base}/v1/events`, { method: "GET" })).headers.get("allow"), "POST", "GET /v1/events");
  t.equal((await api(srv, "GET", "/v1/webhooks", A.key)).status, 200, "the real methods still work");
});

t.test("item 22: the response snippet is at most 1,024 UTF-8 bytes, cut on a character boundary", async (t) => {
  const { utf8Snippet } = await import(join(ROOT, "dist/src/webhooks/snippet.js"));
  t.equal(Buffer.byteLength(utf8Snippet(Buffer.alloc(4000, 0xff))), 1023, "invalid bytes: 341 U+FFFD, not 1,024 of them");
  t.equal(utf8Snippet(Buffer.from("a" + "é".repeat(600))), "a" + "é".repeat(511), "a two-byte character cut by the cap is left out");
  t.equal(utf8Snippet(Buffer.from("ok 3")), "ok 3");
  const hook = await api(srv, "POST", "/v1/webhooks", A.key, { url: `${receiver.base}/junk`, event_types: ["queued"] });
  receiver.behave("/junk", () => ({ status: 500, body: Buffer.alloc(1024, 0xff) }));
  const r = await api(srv, "POST", `/v1/webhooks/${hook.body.id}/test`, A.key, { event_type: "queued" });
  t.equal(r.status, 200);
  t.ok(Buffer.byteLength(r.body.response_snippet) <= 1024, `snippet of 1,024 invalid bytes is ${Buffer.byteLength(r.body.response_snippet)} bytes`);
  const log = await api(srv, "GET", `/v1/webhooks/${hook.body.id}/deliveries`, A.key);
  t.ok(Buffer.byteLength(log.body.deliveries[0].response_snippet) <= 1024, "the delivery log keeps the same");
});

t.test("item 21: a full state.db answers 503 with Retry-After, logs once, and keeps serving reads", async (t) => {
  const full = await startServer(t, { shards: 1, args: SERVER_ARGS, env: { LEIDEX_TEST_STATE_DB_HEADROOM_PAGES: "3" } });
  const op = operatorKeyOf(full);
  const tn = await mkTenant(full, op, "fills-the-disk");
  const hook = await api(full, "POST", "/v1/webhooks", tn.key, { url: `${receiver.base}/full`, event_types: ["queued"] });
  t.equal(hook.status, 201);
  const statuses: number[] = [];
  let refused: Res | null = null;
  for (let i = 0; i < 30 && !refused; i++) {
    const r = await api(full, "POST", "/v1/events", op, { events: events(tn.id, 1000) });
    statuses.push(r.status);
    if (r.status !== 202) refused = r;
  }
  t.ok(refused, `the disk filled up (${statuses.join(" ")})`);
  t.equal(refused?.status, 503, "events: 503, not 500");
  t.equal(refused?.headers.get("retry-after"), "30");
  let tenant: Res | null = null;
  for (let i = 0; i < 400 && !tenant; i++) {
    const r = await api(full, "POST", "/v1/tenants", op, { name: `t${i}-${"x".repeat(150)}` });
    if (r.status !== 201) tenant = r;
  }
  t.equal(tenant?.status, 503, "tenants: 503, not 500");
  t.ok(tenant?.headers.get("retry-after"));
  t.equal((await api(full, "GET", "/v1/tenants", op)).status, 200, "reads still work");
  t.equal((await api(full, "GET", "/v1/webhooks", tn.key)).status, 200);
  t.equal((await full.get("/health")).status, 200);
  for (let i = 0; i < 20; i++) await api(full, "POST", "/v1/events", op, { events: events(tn.id, 1000) });
  const lines = full.stderr().split("\n").filter((l) => l.trim() !== "");
  t.notOk(lines.some((l) => /^\s+at /.test(l)), "no stack traces");
  t.ok(lines.filter((l) => /state\.db/.test(l)).length <= 2, `at most one line a minute (got ${lines.length} lines)`);
  t.match(full.stderr(), /SQLITE_FULL/, "the first failure is named");
});
