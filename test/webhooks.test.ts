// Mail event webhooks (issue 5, area C): operator key, tenants and tenant keys, subscriptions,
// event intake with the message state machine and suppressions, bot detection, and dispatch on the
// dispatcher workers to a real HTTPS receiver on 127.0.0.2 (test-only certificate, allowed with
// --webhook-allow-hosts / --webhook-ca-file): signature checked by a receiver written from
// SPEC.md, retries (delays divided by LEIDEX_WEBHOOK_TIME_SCALE), Retry-After, 410, redirects,
// timeouts, the per-endpoint cap measured at the receiver, the delivery log, test dispatch,
// redelivery and kill -9 with zero loss. The SSRF guard's DNS path runs in-process with a fake
// resolver.

import t from "tap";
import Database from "better-sqlite3";
import { readFileSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { CA_FILE, RECEIVER_HOST, startReceiver, verifyMailSignature, type Hit } from "./helpers/webhook-receiver.js";
import { api as callApi, type Res } from "./helpers/webhook-api.js";
import { ROOT, startServer, tempDir, type RunningServer } from "./helpers/server.js";

process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
const SERVER_ARGS = ["--webhook-allow-hosts", RECEIVER_HOST, "--webhook-ca-file", CA_FILE, "--webhook-timeout", "1", "--dispatchers", "2", "--shards", "1"];

const dataDir = tempDir(t, "leidex-webhooks-");
let srv: RunningServer = await startServer(t, { dataDir, shards: 1, args: SERVER_ARGS });
const receiver = await startReceiver(t);

// srv is replaced when a test restarts the server: each call reads the current one
const api = (method: string, path: string, key: string | null, body?: unknown, raw?: string): Promise<Res> => callApi(srv, method, path, key, body, raw);

const OP = readFileSync(join(dataDir, "operator-key"), "utf8").trim();
let evSeq = 0;
const nowS = (): number => Math.floor(Date.now() / 1000);
const ev = (tenant: string, msg: string, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ id: `ev-${process.pid}-${++evSeq}`, tenant_id: tenant, message_id: msg, type, recipient: `${msg}@example.com`, timestamp: nowS(), ...extra });
const post = (events: unknown[]): Promise<Res> => api("POST", "/v1/events", OP, { events });

async function mkTenant(name: string): Promise<{ id: string; key: string; keyId: string }> {
  const t1 = await api("POST", "/v1/tenants", OP, { name });
  const k = await api("POST", `/v1/tenants/${t1.body.id}/keys`, OP);
  return { id: t1.body.id, key: k.body.key, keyId: k.body.id };
}
async function mkHook(key: string, path: string, types: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const r = await api("POST", "/v1/webhooks", key, { url: receiver.base + path, event_types: types, ...extra });
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return r.body;
}
const json = (h: Hit): any => JSON.parse(h.raw.toString("utf8"));

const A = await mkTenant("tenant-a");
const B = await mkTenant("tenant-b");
const hookA = await mkHook(A.key, "/a", ["queued", "delivered", "bounced", "dropped", "deferred", "opened", "clicked", "unsubscribed"]);

t.test("retry policy in-process, with an injected clock", async (t) => {
  const { verdict, retryAfterMs, MAX_ATTEMPTS, RETRY_DELAYS_MS } = await import(join(ROOT, "dist/src/webhooks/retry.js"));
  const T = 1_700_000_000_000;
  const v = (o: Record<string, unknown>) => verdict({ statusCode: 500, attempt: 1, retryAfter: null, nowMs: T, failingSinceMs: null, scale: 1, random: () => 0, ...o });
  t.same(RETRY_DELAYS_MS, [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6], "5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h");
  t.equal(MAX_ATTEMPTS, 8);
  for (let a = 1; a < 8; a++) t.same(v({ attempt: a }), { kind: "retry", atMs: T + RETRY_DELAYS_MS[a - 1] }, `after attempt ${a}`);
  t.same(v({ attempt: 8 }), { kind: "failed" }, "eight attempts, then failed");
  t.same(v({ attempt: 1, random: () => 0.999 }).atMs, T + Math.round(5000 * 1.0999), "jitter up to 10 %");
  t.same(v({ statusCode: 200 }), { kind: "delivered" });
  t.same(v({ statusCode: 299 }), { kind: "delivered" });
  t.equal(v({ statusCode: 301 }).kind, "retry", "3xx is a failure");
  t.equal(v({ statusCode: null }).kind, "retry", "network error / timeout retried");
  t.match(v({ statusCode: 410 }), { kind: "disable", reason: /410/ });
  t.same(v({ statusCode: 429, retryAfter: "120" }), { kind: "retry", atMs: T + 120_000 }, "Retry-After seconds on 429");
  t.same(v({ statusCode: 503, retryAfter: new Date(T + 600_000).toUTCString() }), { kind: "retry", atMs: T + 600_000 }, "Retry-After date on 503");
  t.same(v({ statusCode: 500, retryAfter: "120" }), { kind: "retry", atMs: T + 5000 }, "ignored on 500");
  t.same(v({ statusCode: 429, retryAfter: "1" }), { kind: "retry", atMs: T + 5000 }, "never sooner than the schedule");
  t.equal(retryAfterMs("999999999", T), 86_400_000, "capped at a day");
  t.equal(retryAfterMs("soon", T), null);
  t.equal(v({ failingSinceMs: T - 5 * 86_400_000 + 1 }).kind, "retry", "just under five days failing");
  t.match(v({ failingSinceMs: T - 5 * 86_400_000 }), { kind: "disable", reason: /5 days/ }, "five days failing disables");
});

t.test("group commit in-process: of batches submitted in one turn, each is all or nothing and a refused one spares its neighbours", async (t) => {
  const { openStateDb } = await import(join(ROOT, "dist/src/store/state-db.js"));
  const { TenantStore } = await import(join(ROOT, "dist/src/webhooks/tenant-store.js"));
  const { WebhookStore } = await import(join(ROOT, "dist/src/webhooks/webhook-store.js"));
  const { SuppressionStore } = await import(join(ROOT, "dist/src/webhooks/suppression-store.js"));
  const { Outbox } = await import(join(ROOT, "dist/src/webhooks/outbox.js"));
  const { Intake, IntakeError } = await import(join(ROOT, "dist/src/webhooks/intake.js"));
  const db = openStateDb(tempDir(t, "leidex-intake-"));
  t.teardown(() => db.close());
  const tenants = new TenantStore(db);
  const webhooks = new WebhookStore(db);
  const tn = tenants.create("in-process");
  webhooks.create(tn.id, "https://receiver.example.com/x", ["queued", "delivered"], 4);
  new SuppressionStore(db);
  new Outbox(db);
  // every row may go straight to dispatch (stored leased)
  const intake = new Intake(db, { directAllowance: () => Number.MAX_SAFE_INTEGER });
  t.teardown(() => intake.stop());
  const e = (id: string, msg: string, type: string) => ({ id, tenant_id: tn.id, message_id: msg, type, recipient: `${msg}@example.com`, timestamp: nowS() });
  await intake.submit([e("p0", "pm0", "delivered")]);
  const before = (db.prepare("SELECT COUNT(*) AS n FROM deliveries").get() as { n: number }).n;
  const results = await Promise.allSettled([
    intake.submit([e("p1", "pm1", "queued")]),
    intake.submit([e("p2", "pm2", "queued"), e("p3", "pm0", "queued")]), // pm0 is delivered: 409, p2 must not stay
    intake.submit([e("p4", "pm4", "queued")]),
  ]);
  t.same(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
  const refused = results[1] as PromiseRejectedResult;
  t.ok(refused.reason instanceof IntakeError && refused.reason.status === 409, "the refused batch gets its 409");
  const stored = db.prepare("SELECT id FROM mail_events ORDER BY id").all().map((r: any) => r.id);
  t.same(stored, ["p0", "p1", "p4"], "the refused batch left nothing behind; its neighbours are stored");
  t.equal((db.prepare("SELECT COUNT(*) AS n FROM deliveries").get() as { n: number }).n, before + 2, "one outbox row per stored event");
  const fulfilled = results[0] as PromiseFulfilledResult<any>;
  t.equal(fulfilled.value.handOff.rows.length, 1, "the hand-off lists the rows written");
});

t.test("operator key: generated on first start, 0600, printed once in full", async (t) => {
  t.match(OP, /^lxo_[0-9A-Za-z]{32}$/);
  t.equal(statSync(join(dataDir, "operator-key")).mode & 0o777, 0o600);
  t.ok(srv.stdout().includes(OP), "the banner shows the generated key once");
});

t.test("tenants and tenant keys: operator only, keys hashed and revocable", async (t) => {
  t.equal((await api("POST", "/v1/tenants", null, { name: "x" })).status, 401, "no key");
  t.equal((await api("POST", "/v1/tenants", "lxo_wrong", { name: "x" })).status, 401, "unknown key");
  const asTenant = await api("POST", "/v1/tenants", A.key, { name: "x" });
  t.equal(asTenant.status, 403, "a tenant key is not an operator key");
  t.match(asTenant.body, { error: String });
  t.equal((await api("GET", "/v1/webhooks", OP)).status, 403, "the operator key is not a tenant key");
  t.equal((await api("POST", "/v1/tenants", OP, undefined, "{not json")).status, 400, "bad JSON");
  t.equal((await api("POST", "/v1/tenants", OP, { name: 7 })).status, 400, "wrong type");
  t.equal((await api("POST", "/v1/tenants", OP, { name: "" })).status, 400, "empty name");
  t.equal((await api("POST", "/v1/tenants", OP, { name: "a", extra: 1 })).status, 400, "unknown field");
  t.equal((await api("POST", "/v1/tenants", OP, undefined, JSON.stringify({ name: "x".repeat(70_000) }))).status, 413, "huge body");
  const created = await api("POST", "/v1/tenants", OP, { name: "c" });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ["created_at", "id", "name"]);
  t.equal((await api("POST", "/v1/tenants/tn_nope/keys", OP)).status, 404);
  const k = await api("POST", `/v1/tenants/${created.body.id}/keys`, OP);
  t.equal(k.status, 201);
  t.match(k.body, { id: String, key: /^lxt_/ });
  t.equal((await api("GET", "/v1/webhooks", k.body.key)).status, 200, "new key works");
  const state = readFileSync(join(dataDir, "state.db"));
  t.notOk(state.includes(Buffer.from(k.body.key)), "the key is not stored in clear");
  const listed = await api("GET", `/v1/tenants/${created.body.id}/keys`, OP);
  t.notOk(listed.text.includes(k.body.key), "listing never shows the key");
  t.equal((await api("DELETE", `/v1/tenants/${created.body.id}/keys/${k.body.id}`, OP)).status, 200);
  t.equal((await api("GET", "/v1/webhooks", k.body.key)).status, 401, "revoked key refused");
  t.equal((await api("DELETE", `/v1/tenants/${created.body.id}/keys/${k.body.id}`, OP)).status, 404, "twice: 404");
});

t.test("guessing guard: 30 unknown keys a minute per address, then 429; valid keys still work", async (t) => {
  const from = (key: string): Promise<{ status: number; retryAfter: string | undefined }> => new Promise((res, rej) => {
    const req = httpRequest({ host: "127.0.0.1", port: srv.port, path: "/v1/webhooks", localAddress: "127.0.0.5", headers: { authorization: `Bearer ${key}` } }, (r) => {
      r.resume();
      r.on("end", () => res({ status: r.statusCode ?? 0, retryAfter: r.headers["retry-after"] as string | undefined }));
    });
    req.on("error", rej);
    req.end();
  });
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) statuses.push((await from(`lxt_guess${i}`)).status);
  t.same(statuses.slice(0, 30), Array(30).fill(401));
  const blocked = await from("lxt_guess-last");
  t.equal(blocked.status, 429);
  t.match(blocked.retryAfter, /^\d+$/);
  t.equal((await from(A.key)).status, 200, "a valid key is never blocked");
  t.equal((await api("GET", "/v1/webhooks", "lxt_other-address")).status, 401, "other addresses unaffected");
});

t.test("subscriptions: create, validate, list, get, update, rotate, delete; tenant isolation", async (t) => {
  const r = await api("POST", "/v1/webhooks", A.key, { url: `${receiver.base}/crud`, event_types: ["delivered", "bounced"] });
  t.equal(r.status, 201);
  t.match(r.body, { id: String, url: `${receiver.base}/crud`, event_types: ["delivered", "bounced"], secret: /^whsec_/, status: "enabled", created_at: String, max_concurrency: 4 });
  const id = r.body.id;
  const bad = async (body: unknown, what: string, raw?: string): Promise<void> => {
    const x = await api("POST", "/v1/webhooks", A.key, body, raw);
    t.equal(x.status, 400, what);
    t.type(x.body?.error, "string", `${what}: {error}`);
  };
  await bad({ url: `${receiver.base}/x`, event_types: ["delivered", "exploded"] }, "unknown type");
  await bad({ url: `${receiver.base}/x`, event_types: ["delivered", "delivered"] }, "duplicate type");
  await bad({ url: `${receiver.base}/x`, event_types: [] }, "empty list");
  await bad({ url: `${receiver.base}/x`, event_types: "delivered" }, "not a list");
  await bad({ url: 5, event_types: ["delivered"] }, "url not a string");
  await bad({ event_types: ["delivered"] }, "no url");
  await bad(undefined, "bad JSON", "[1,");
  await bad(undefined, "a JSON array", "[]");
  await bad({ url: `http://${RECEIVER_HOST}/x`, event_types: ["delivered"] }, "http url");
  await bad({ url: `https://user:pw@${RECEIVER_HOST}/x`, event_types: ["delivered"] }, "userinfo");
  await bad({ url: "not a url", event_types: ["delivered"] }, "not a url");
  for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "localhost", "localhost.", "LOCALHOST", "169.254.169.254", "10.1.2.3", "[::1]", "0.0.0.0", "printer.local."]) {
    await bad({ url: `https://${host}/hook`, event_types: ["delivered"] }, `SSRF: ${host}`);
  }
  await bad({ url: "https://nothing.invalid/hook", event_types: ["delivered"] }, "a name that does not resolve (checked by DNS at creation)");
  t.equal((await api("POST", "/v1/webhooks", null, { url: `${receiver.base}/x`, event_types: ["delivered"] })).status, 401);

  const got = await api("GET", `/v1/webhooks/${id}`, A.key);
  t.equal(got.status, 200);
  t.notOk("secret" in got.body, "secret only on creation");
  const list = await api("GET", "/v1/webhooks", A.key);
  t.ok(list.body.webhooks.some((w: any) => w.id === id));
  t.notOk(list.text.includes(r.body.secret));
  // another tenant sees nothing of it
  for (const [m, p, b] of [["GET", `/v1/webhooks/${id}`], ["PATCH", `/v1/webhooks/${id}`, { enabled: false }], ["DELETE", `/v1/webhooks/${id}`],
    ["POST", `/v1/webhooks/${id}/rotate-secret`], ["GET", `/v1/webhooks/${id}/deliveries`], ["POST", `/v1/webhooks/${id}/test`, {}]] as const) {
    t.equal((await api(m, p, B.key, b)).status, 404, `tenant B: ${m} ${p} is 404`);
  }
  t.notOk((await api("GET", "/v1/webhooks", B.key)).text.includes(id));

  const up = await api("PATCH", `/v1/webhooks/${id}`, A.key, { event_types: ["opened"], enabled: false, max_concurrency: 2 });
  t.equal(up.status, 200);
  t.match(up.body, { event_types: ["opened"], status: "disabled", max_concurrency: 2 });
  t.equal((await api("PATCH", `/v1/webhooks/${id}`, A.key, { event_types: ["nope"] })).status, 400);
  t.equal((await api("PATCH", `/v1/webhooks/${id}`, A.key, { url: "https://169.254.169.254/" })).status, 400);
  t.equal((await api("PATCH", `/v1/webhooks/${id}`, A.key, {})).status, 400, "empty update");
  t.equal((await api("PATCH", `/v1/webhooks/${id}`, A.key, { enabled: "yes" })).status, 400);
  t.equal((await api("PATCH", `/v1/webhooks/${id}`, A.key, { enabled: true })).body.status, "enabled");
  const rot = await api("POST", `/v1/webhooks/${id}/rotate-secret`, A.key);
  t.equal(rot.status, 200);
  t.not(rot.body.secret, r.body.secret);
  t.equal((await api("DELETE", `/v1/webhooks/${id}`, A.key)).status, 200);
  t.equal((await api("GET", `/v1/webhooks/${id}`, A.key)).status, 404);
  t.equal((await api("GET", "/v1/webhooks/wh_missing", A.key)).status, 404);
});

t.test("SSRF guard: DNS answers are checked at connect time (fake resolver)", async (t) => {
  const { UrlGuard, isGlobalAddress } = await import(join(ROOT, "dist/src/webhooks/url-guard.js"));
  for (const a of ["127.0.0.1", "::ffff:127.0.0.1", "::ffff:7f00:1", "169.254.169.254", "10.0.0.5", "192.168.1.1", "172.16.0.1", "fd00::1", "fe80::1", "::1", "100.64.0.1"]) {
    t.notOk(isGlobalAddress(a), `${a} is not global`);
  }
  for (const a of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"]) t.ok(isGlobalAddress(a), `${a} is global`);
  const guard = new UrlGuard(["allowed.test"]);
  const fake = (answers: string[]) => (_h: string, _o: object, cb: (e: Error | null, a: { address: string; family: number }[]) => void) =>
    cb(null, answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
  const look = (host: string, answers: string[]): Promise<string> => new Promise((res) => {
    guard.lookupFor(fake(answers))(host, {}, (err: Error | null, addr: string) => res(err ? `error: ${err.message}` : addr));
  });
  t.match(await look("intranet.example.com", ["10.1.2.3"]), /^error: blocked/, "a name resolving to 10.x is refused");
  t.match(await look("mixed.example.com", ["93.184.216.34", "127.0.0.1"]), /^error: blocked/, "any private answer refuses");
  t.equal(await look("public.example.com", ["93.184.216.34"]), "93.184.216.34");
  t.equal(await look("allowed.test", ["10.1.2.3"]), "10.1.2.3", "allowed hosts may be private");
  t.equal(guard.problem("https://printer.local/x"), "url points at a local host name (printer.local)");
});

t.test("event intake: validation, idempotency, transitions, suppression, bot detection, signed dispatch", async (t) => {
  t.equal((await api("POST", "/v1/events", A.key, { events: [ev(A.id, "m0", "queued")] })).status, 403, "tenant key cannot report events");
  t.equal((await api("POST", "/v1/events", null, { events: [] })).status, 401);
  for (const [what, body, raw] of [
    ["bad JSON", undefined, "{\"events\": ["], ["empty list", { events: [] }], ["no events", {}], ["events not a list", { events: {} }],
    ["unknown type", { events: [ev(A.id, "m0", "exploded")] }], ["timestamp as string", { events: [ev(A.id, "m0", "queued", { timestamp: "now" })] }],
    ["bad recipient", { events: [ev(A.id, "m0", "queued", { recipient: "nobody" })] }], ["bounce without bounce_type", { events: [ev(A.id, "m0", "bounced")] }],
    ["unknown field", { events: [ev(A.id, "m0", "queued", { colour: "red" })] }], ["unknown tenant", { events: [ev("tn_ghost", "m0", "queued")] }],
  ] as const) {
    const r = await api("POST", "/v1/events", OP, body, raw);
    t.equal(r.status, 400, what);
    t.type(r.body?.error, "string");
  }
  t.equal((await api("POST", "/v1/events", OP, undefined, JSON.stringify({ events: [ev(A.id, "m0", "queued", { reason: "x".repeat(1_100_000) })] }))).status, 413);

  const q = ev(A.id, "m1", "queued");
  const d = ev(A.id, "m1", "delivered");
  const r1 = await post([q, d]);
  t.equal(r1.status, 202);
  t.same(r1.body, { accepted: 2, duplicates: 0, deliveries: 2 });
  const again = await post([q, d]);
  t.same(again.body, { accepted: 0, duplicates: 2, deliveries: 0 }, "idempotent by event id");
  const conflict = await post([ev(A.id, "m1", "deferred")]);
  t.equal(conflict.status, 409);
  t.match(conflict.body.error, /delivered/);
  t.match(conflict.body.error, /deferred/);
  const held = await post([ev(A.id, "m2", "held")]);
  t.equal(held.status, 202);
  const c2 = await post([ev(A.id, "m2", "delivered")]);
  t.equal(c2.status, 409);
  t.match(c2.body.error, /'held' to 'delivered'/, "names both states");
  // a refused batch stores nothing of itself
  const okPart = ev(A.id, "m3", "queued");
  t.equal((await post([okPart, ev(A.id, "m1", "queued")])).status, 409);
  t.equal((await post([okPart])).body.accepted, 1, "the good half of a refused batch was not stored");
  // batches arriving together are committed together (one fsync), each still all or nothing
  const goodA = ev(A.id, "g1", "queued"), goodB = ev(A.id, "g2", "queued"), badHalf = ev(A.id, "g3", "queued");
  const together = await Promise.all([post([goodA]), post([badHalf, ev(A.id, "m1", "queued")]), post([goodB])]);
  t.same(together.map((r) => r.status), [202, 409, 202], "concurrent batches: a refused one does not take its neighbours down");
  t.same((await post([goodA, goodB, badHalf])).body, { accepted: 1, duplicates: 2, deliveries: 1 }, "its neighbours were stored, it was not");

  // hard bounce -> suppression -> next queued is dropped with the reason
  t.equal((await post([ev(A.id, "m4", "queued", { recipient: "Gone@Example.com" }), ev(A.id, "m4", "bounced", { recipient: "Gone@Example.com", bounce_type: "hard", smtp_code: 550 })])).status, 202);
  const sup = await api("GET", "/v1/suppressions/gone@example.com", A.key);
  t.match(sup.body, { address: "gone@example.com", reason: "hard_bounce" });
  t.equal((await api("GET", "/v1/suppressions/gone@example.com", B.key)).status, 404, "suppressions are per tenant");
  const soft = await post([ev(A.id, "m5", "bounced", { recipient: "soft@example.com", bounce_type: "soft" })]);
  t.equal(soft.status, 202);
  t.equal((await api("GET", "/v1/suppressions/soft@example.com", A.key)).status, 404, "a soft bounce does not suppress");
  const dropped = ev(A.id, "m6", "queued", { recipient: "gone@example.com" });
  t.equal((await post([dropped])).status, 202);
  t.equal((await post([ev(A.id, "m6", "delivered", { recipient: "gone@example.com" })])).status, 409, "a dropped message is final");

  // bot detection
  const delivered = ev(A.id, "m7", "delivered");
  await post([delivered]);
  const later = (delivered.timestamp as number) + 60;
  const opens = [
    ev(A.id, "m7", "opened", { user_agent: "Mozilla/5.0 (via ggpht.com GoogleImageProxy)", timestamp: later }),
    ev(A.id, "m7", "clicked", { user_agent: "Mozilla/5.0 (Windows NT 10.0) Firefox/128.0", http_method: "HEAD", url: "https://x.example/", timestamp: later }),
    ev(A.id, "m7", "clicked", { user_agent: "Mozilla/5.0 (Windows NT 10.0) Firefox/128.0", url: "https://x.example/", timestamp: delivered.timestamp }),
    ev(A.id, "m7", "opened", { user_agent: "Mozilla/5.0 (Windows NT 10.0) Firefox/128.0", ip: "203.0.113.9", timestamp: later }),
  ];
  t.equal((await post(opens)).status, 202);
  t.equal((await post([ev(A.id, "m6", "opened", { user_agent: "x" })])).status, 409, "engagement on a dropped message is refused");

  const ids = [q, d, dropped, delivered, ...opens].map((e) => e.id);
  await receiver.waitFor(() => ids.every((id) => receiver.hits("/a").some((h) => json(h).id === id)), 10_000, "dispatches to /a");
  const byId = (id: unknown): Hit => receiver.hits("/a").find((h) => json(h).id === id)!;
  for (const id of ids) {
    const h = byId(id);
    t.ok(verifyMailSignature(hookA.secret, h), `signature of ${String(id)} verifies`);
    t.equal(h.method, "POST");
    t.equal(h.headers["x-mail-event-id"], id);
    t.equal(h.headers["x-mail-event"], json(h).type);
    t.match(String(h.headers["x-mail-nonce"]), /^[0-9a-f]{32}$/);
    t.ok(Math.abs(Number(h.headers["x-mail-timestamp"]) - nowS()) < 30, "timestamp is Unix seconds");
    t.equal(h.raw.toString(), JSON.stringify(json(h)), "minified JSON");
  }
  const tampered = { ...byId(q.id), raw: Buffer.from(byId(q.id).raw.toString().replace("m1", "m9")) };
  t.notOk(verifyMailSignature(hookA.secret, tampered), "a changed body fails the check");
  t.notOk(verifyMailSignature("whsec_other", byId(q.id)), "another secret fails the check");
  t.match(json(byId(q.id)), { id: q.id, type: "queued", tenant_id: A.id, created_at: String, data: { message_id: "m1", recipient: "m1@example.com" } });
  t.match(json(byId(dropped.id)), { type: "dropped", data: { reason: "suppressed", suppression_reason: "hard_bounce" } }, "queued to a suppressed address is dropped");
  t.same(opens.map((o) => [json(byId(o.id)).data.machine, json(byId(o.id)).data.machine_reason]), [
    [true, "google_image_proxy"], [true, "head_request"], [true, "within_seconds_of_delivery"], [false, null],
  ], "bot detection");
  t.equal(receiver.hits("/a").filter((h) => json(h).id === q.id).length, 1, "a duplicate event is not dispatched again");
});

t.test("suppressions API", async (t) => {
  t.equal((await api("POST", "/v1/suppressions", A.key, { address: "Manual@Example.com" })).body.reason, "manual");
  t.equal((await api("POST", "/v1/suppressions", A.key, { address: "spam@example.com", reason: "spam_complaint" })).status, 201);
  t.equal((await api("POST", "/v1/suppressions", A.key, { address: "x@example.com", reason: "because" })).status, 400);
  t.equal((await api("POST", "/v1/suppressions", A.key, { address: "no-at-sign" })).status, 400);
  t.equal((await api("POST", "/v1/suppressions", A.key, undefined, "nope")).status, 400);
  const list = await api("GET", "/v1/suppressions?limit=2", A.key);
  t.equal(list.body.suppressions.length, 2);
  const rest = await api("GET", `/v1/suppressions?after=${encodeURIComponent(list.body.next_after)}`, A.key);
  t.ok(rest.body.suppressions.every((s: any) => s.address > list.body.next_after));
  t.notOk((await api("GET", "/v1/suppressions", B.key)).text.includes("manual@example.com"), "B sees none of A's");
  t.equal((await api("DELETE", "/v1/suppressions/manual@example.com", B.key)).status, 404);
  t.equal((await api("DELETE", "/v1/suppressions/MANUAL@example.com", A.key)).status, 200);
  t.equal((await api("GET", "/v1/suppressions/manual@example.com", A.key)).status, 404);
  t.equal((await api("GET", "/v1/suppressions?limit=0", A.key)).status, 400);
});

t.test("retries: schedule, byte-identical body, Retry-After, 410 disables, redirects and timeouts fail", async (t) => {
  const hook = await mkHook(B.key, "/retry", ["delivered"]);
  receiver.behave("/retry", (n) => (n <= 3 ? { status: n === 1 ? 500 : n === 2 ? 302 : 404, headers: n === 2 ? { location: `${receiver.base}/elsewhere` } : {} } : { status: 204 }));
  const e = ev(B.id, "r1", "delivered");
  await post([e]);
  await receiver.waitFor(() => receiver.hits("/retry").length >= 4, 15_000, "4 attempts");
  const hits = receiver.hits("/retry");
  t.equal(receiver.hits("/elsewhere").length, 0, "redirect not followed");
  t.equal(new Set(hits.map((h) => h.raw.toString())).size, 1, "body byte-identical across retries");
  t.equal(new Set(hits.map((h) => h.headers["x-mail-event-id"])).size, 1, "event id stable");
  t.equal(new Set(hits.map((h) => h.headers["x-mail-nonce"])).size, 4, "fresh nonce per attempt");
  for (const h of hits) t.ok(verifyMailSignature(hook.secret, h));
  // schedule /1000: 5 s -> 5 ms, 5 min -> 300 ms, 30 min -> 1.8 s (+ up to 10 % jitter)
  const gaps = hits.slice(1).map((h, i) => h.at - hits[i].at);
  t.ok(gaps[1] >= 290 && gaps[1] < 1500, `second retry after ~300 ms (${gaps[1]})`);
  t.ok(gaps[2] >= 1780 && gaps[2] < 3500, `third retry after ~1.8 s (${gaps[2]})`);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.hits("/retry").length, 4, "no attempt after success");
  const log = await api("GET", `/v1/webhooks/${hook.id}/deliveries`, B.key);
  t.same(log.body.deliveries.map((d: any) => [d.attempt, d.outcome, d.status_code]), [[4, "success", 204], [3, "failure", 404], [2, "failure", 302], [1, "failure", 500]]);
  t.match(log.body.deliveries[1], { trigger: "scheduled", next_attempt_at: String, response_snippet: "ok 3", duration_ms: Number });
  t.equal(log.body.deliveries[0].next_attempt_at, null);
  const failures = await api("GET", `/v1/webhooks/${hook.id}/deliveries?outcome=failure&limit=2`, B.key);
  t.equal(failures.body.deliveries.length, 2);
  const page2 = await api("GET", `/v1/webhooks/${hook.id}/deliveries?outcome=failure&limit=2&before=${failures.body.next_before}`, B.key);
  t.same(page2.body.deliveries.map((d: any) => d.attempt), [1]);
  t.equal((await api("GET", `/v1/webhooks/${hook.id}/deliveries?outcome=maybe`, B.key)).status, 400);
  t.equal((await api("GET", `/v1/webhooks/${hook.id}/deliveries?limit=500`, B.key)).status, 400);

  // Retry-After: 2 s (real seconds, never scaled) beats the scaled 5 s
  const ra = await mkHook(B.key, "/ra", ["bounced"]);
  receiver.behave("/ra", (n) => (n === 1 ? { status: 429, headers: { "retry-after": "2" } } : { status: 200 }));
  await post([ev(B.id, "r2", "bounced", { bounce_type: "soft" })]);
  await receiver.waitFor(() => receiver.hits("/ra").length >= 2, 8000, "retry after Retry-After");
  const [h1, h2] = receiver.hits("/ra");
  t.ok(h2.at - h1.at >= 1900, `Retry-After: 2 honoured (${h2.at - h1.at} ms)`);
  t.ok(verifyMailSignature(ra.secret, h2));

  // 410 disables the endpoint; the tenant can re-enable it
  const gone = await mkHook(B.key, "/gone", ["dropped"]);
  receiver.behave("/gone", () => ({ status: 410 }));
  await post([ev(B.id, "r3", "dropped")]);
  await receiver.waitFor(() => receiver.hits("/gone").length >= 1, 5000, "410");
  let st: Res;
  const until = Date.now() + 3000;
  do { st = await api("GET", `/v1/webhooks/${gone.id}`, B.key); } while (st.body.status !== "disabled" && Date.now() < until);
  t.match(st.body, { status: "disabled", disabled_reason: /410/ });
  await post([ev(B.id, "r4", "dropped")]);
  await new Promise((r) => setTimeout(r, 400));
  t.equal(receiver.hits("/gone").length, 1, "nothing goes to a disabled endpoint");
  t.equal((await api("PATCH", `/v1/webhooks/${gone.id}`, B.key, { enabled: true })).body.status, "enabled");

  // a receiver slower than the timeout (1 s) is a failure with an error, then retried
  await mkHook(B.key, "/slow", ["deferred"]);
  receiver.behave("/slow", (n) => (n === 1 ? { status: 200, delayMs: 2500 } : { status: 200 }));
  const slow = ev(B.id, "r5", "deferred");
  await post([slow]);
  await receiver.waitFor(() => receiver.hits("/slow").length >= 2, 8000, "retry after a timeout");
  t.equal(json(receiver.hits("/slow")[1]).id, slow.id);
});

t.test("per-endpoint cap measured at the receiver; first attempts in event order; test dispatch; redelivery", async (t) => {
  const capped = await mkHook(A.key, "/cap", ["processed"], { max_concurrency: 3 });
  receiver.behave("/cap", () => ({ status: 200, delayMs: 80 }));
  const events = Array.from({ length: 40 }, (_, i) => ev(A.id, `cap${i}`, "processed"));
  t.equal((await post(events)).status, 202);
  // test dispatches go through the same queue and cap
  const tests = await Promise.all([1, 2, 3].map(() => api("POST", `/v1/webhooks/${capped.id}/test`, A.key, { event_type: "processed" })));
  await receiver.waitFor(() => receiver.hits("/cap").length >= 43, 15_000, "43 requests");
  t.equal(receiver.maxInFlight("/cap"), 3, "never more than 3 at once, and the cap is used");
  const order = receiver.hits("/cap").map((h) => json(h).id).filter((id: string) => !id.startsWith("evt_test_"));
  // with 3 in flight, arrival may swap within a window of 3; starts are in event order
  const pos = events.map((e) => order.indexOf(e.id));
  t.ok(pos.every((p, i) => p >= 0 && Math.abs(p - i) < 3), "first attempts in event order");
  for (const r of tests) {
    t.equal(r.status, 200);
    t.match(r.body, { success: true, status_code: 200, event_type: "processed", event_id: /^evt_test_/ });
  }
  const th = receiver.hits("/cap").find((h) => json(h).id === tests[0].body.event_id)!;
  t.ok(verifyMailSignature(capped.secret, th), "test dispatch is signed");
  t.equal(json(th).data.test, true);
  const tlog = await api("GET", `/v1/webhooks/${capped.id}/deliveries?limit=100`, A.key);
  t.ok(tlog.body.deliveries.some((d: any) => d.trigger === "test" && d.event_id === tests[0].body.event_id && d.event_type === "processed"));
  t.equal((await api("POST", `/v1/webhooks/${capped.id}/test`, A.key, { event_type: "boom" })).status, 400);

  // manual redelivery of one delivery, and of all failed since a time
  const rd = await mkHook(A.key, "/redeliver", ["released"]);
  receiver.behave("/redeliver", () => ({ status: 500 }));
  const e = ev(A.id, "rd1", "released");
  await post([e]);
  await receiver.waitFor(() => receiver.hits("/redeliver").length >= 3, 8000, "3 failed attempts");
  await api("PATCH", `/v1/webhooks/${rd.id}`, A.key, { enabled: false });
  const n = receiver.hits("/redeliver").length;
  const log = await api("GET", `/v1/webhooks/${rd.id}/deliveries`, A.key);
  const deliveryId = log.body.deliveries[0].delivery_id;
  t.equal((await api("POST", `/v1/webhooks/${rd.id}/deliveries/${deliveryId}/redeliver`, A.key)).status, 409, "disabled: enable first");
  await api("PATCH", `/v1/webhooks/${rd.id}`, A.key, { enabled: true });
  receiver.behave("/redeliver", () => ({ status: 200 }));
  t.equal((await api("POST", `/v1/webhooks/${rd.id}/deliveries/${deliveryId}/redeliver`, A.key)).status, 202);
  await receiver.waitFor(() => receiver.hits("/redeliver").length > n, 5000, "manual redelivery");
  // results reach the log in batches, a few ms after the receiver answered
  let after: Res;
  const logUntil = Date.now() + 2000;
  do { after = await api("GET", `/v1/webhooks/${rd.id}/deliveries?limit=1`, A.key); } while (after.body.deliveries[0]?.outcome !== "success" && Date.now() < logUntil);
  t.match(after.body.deliveries[0], { trigger: "manual", outcome: "success" });
  t.equal((await api("POST", `/v1/webhooks/${rd.id}/deliveries/dl_nope/redeliver`, A.key)).status, 404);
  t.equal((await api("POST", `/v1/webhooks/${rd.id}/redeliver`, A.key, { since: "yesterday" })).status, 400);
  t.same((await api("POST", `/v1/webhooks/${rd.id}/redeliver`, A.key, { since: 0 })).body, { redelivering: 0 }, "nothing failed any more");

  // a manual redelivery asked for while an attempt is on its way is not swallowed by that attempt's result
  const busy = await mkHook(A.key, "/inflight", ["held"]);
  receiver.behave("/inflight", () => ({ status: 200, delayMs: 500 }));
  await post([ev(A.id, "if1", "held")]);
  await receiver.waitFor(() => receiver.hits("/inflight").length >= 1, 5000, "first attempt under way");
  const state = new Database(join(dataDir, "state.db"));
  const busyId = (state.prepare("SELECT id FROM deliveries WHERE webhook_id = ?").get(busy.id) as { id: string }).id;
  state.close();
  t.equal((await api("POST", `/v1/webhooks/${busy.id}/deliveries/${busyId}/redeliver`, A.key)).status, 202, "asked while the first attempt waits for its answer");
  await receiver.waitFor(() => receiver.hits("/inflight").length >= 2, 5000, "the redelivery after the first attempt's answer");
  let busyLog: Res;
  const busyUntil = Date.now() + 2000;
  do { busyLog = await api("GET", `/v1/webhooks/${busy.id}/deliveries`, A.key); } while (busyLog.body.deliveries.length < 2 && Date.now() < busyUntil);
  t.same(busyLog.body.deliveries.map((x: any) => [x.attempt, x.trigger, x.outcome]), [[2, "manual", "success"], [1, "scheduled", "success"]]);
});

t.test("inbound routes: operator CRUD, most specific match, signed dispatch, idempotent", async (t) => {
  const base = `/v1/tenants/${A.id}/inbound-routes`;
  t.equal((await api("POST", base, A.key, { match: "@in.example.com", url: `${receiver.base}/in-a` })).status, 403, "a tenant key is not the operator key");
  t.equal((await api("POST", base, null, { match: "@in.example.com", url: `${receiver.base}/in-a` })).status, 401);
  t.equal((await api("POST", "/v1/tenants/tn_nope/inbound-routes", OP, { match: "*", url: `${receiver.base}/in-a` })).status, 404);
  for (const [what, body] of [["bad match", { match: "in.example.com", url: `${receiver.base}/x` }], ["private url", { match: "*", url: "https://10.0.0.1/x" }],
    ["http url", { match: "*", url: `http://${RECEIVER_HOST}/x` }], ["unknown field", { match: "*", url: `${receiver.base}/x`, x: 1 }]] as const) {
    t.equal((await api("POST", base, OP, body)).status, 400, what);
  }
  t.equal((await api("POST", base, OP, undefined, "{")).status, 400, "bad JSON");
  const ra = await api("POST", base, OP, { match: "@In.Example.com", url: `${receiver.base}/in-a` });
  t.equal(ra.status, 201);
  t.match(ra.body, { id: /^ir_/, tenant_id: A.id, match: "@in.example.com", secret: /^whsec_/ });
  const rb = await api("POST", `/v1/tenants/${B.id}/inbound-routes`, OP, { match: "vip@in.example.com", url: `${receiver.base}/in-b` });
  t.equal(rb.status, 201);
  t.equal((await api("GET", `/v1/tenants/${B.id}/inbound-routes/${ra.body.id}`, OP)).status, 404, "A's route is not under B");
  t.notOk((await api("GET", base, OP)).text.includes(ra.body.secret), "listing hides the secret");
  t.equal((await api("GET", "/v1/webhooks", A.key)).body.webhooks.some((w: any) => w.id === ra.body.id), false, "routes are not webhooks");

  const msg = { id: `in-${process.pid}-1`, recipient: "help@in.example.com", from: "someone@sender.example", subject: "Hi", text: "hello", timestamp: nowS() };
  t.equal((await api("POST", "/v1/inbound", A.key, msg)).status, 403, "tenant keys cannot post inbound mail");
  const r1 = await api("POST", "/v1/inbound", OP, msg);
  t.equal(r1.status, 202);
  t.same(r1.body, { route_id: ra.body.id, tenant_id: A.id, duplicate: false });
  t.same((await api("POST", "/v1/inbound", OP, msg)).body.duplicate, true, "idempotent by id");
  const vip = { ...msg, id: `in-${process.pid}-2`, recipient: "VIP@in.example.com" };
  t.equal((await api("POST", "/v1/inbound", OP, vip)).body.route_id, rb.body.id, "the exact address beats the domain");
  const none = await api("POST", "/v1/inbound", OP, { ...msg, id: `in-${process.pid}-3`, recipient: "x@elsewhere.example" });
  t.equal(none.status, 404);
  t.equal((await api("POST", "/v1/inbound", OP, { ...msg, timestamp: "now" })).status, 400);
  t.equal((await api("POST", "/v1/inbound", OP, { ...msg, headers: { a: 1 } })).status, 400);
  await receiver.waitFor(() => receiver.hits("/in-a").length >= 1 && receiver.hits("/in-b").length >= 1, 8000, "inbound dispatches");
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.hits("/in-a").length, 1, "one dispatch despite the duplicate");
  const ha = receiver.hits("/in-a")[0];
  t.ok(verifyMailSignature(ra.body.secret, ha), "signed with the route's secret");
  t.equal(ha.headers["x-mail-event"], "inbound");
  t.match(json(ha), { id: msg.id, type: "inbound", tenant_id: A.id, data: { route_id: ra.body.id, recipient: "help@in.example.com", from: msg.from, subject: "Hi", text: "hello" } });
  t.ok(verifyMailSignature(rb.body.secret, receiver.hits("/in-b")[0]));
  t.equal(json(receiver.hits("/in-b")[0]).tenant_id, B.id);

  const up = await api("PATCH", `${base}/${ra.body.id}`, OP, { match: "*" });
  t.match(up.body, { match: "*" });
  t.equal((await api("PATCH", `${base}/${ra.body.id}`, OP, { match: "" })).status, 400);
  t.equal((await api("POST", "/v1/inbound", OP, { ...msg, id: `in-${process.pid}-4`, recipient: "x@elsewhere.example" })).body.route_id, ra.body.id, "catch-all");
  t.equal((await api("DELETE", `${base}/${ra.body.id}`, OP)).status, 200);
  t.equal((await api("DELETE", `${base}/${ra.body.id}`, OP)).status, 404);
  await api("DELETE", `/v1/tenants/${B.id}/inbound-routes/${rb.body.id}`, OP);
  t.equal((await api("POST", "/v1/inbound", OP, { ...msg, id: `in-${process.pid}-5` })).status, 404, "no route left");
});

t.test("kill -9 mid-dispatch loses no accepted event; the operator key survives", async (t) => {
  await mkHook(B.key, "/kill", ["held"], { max_concurrency: 1 });
  receiver.behave("/kill", () => ({ status: 200, delayMs: 30 }));
  const events = Array.from({ length: 60 }, (_, i) => ev(B.id, `k${i}`, "held"));
  t.equal((await post(events)).status, 202);
  await receiver.waitFor(() => receiver.hits("/kill").length >= 5, 5000, "dispatch under way");
  srv.child.kill("SIGKILL");
  await srv.exited;
  const before = new Set(receiver.hits("/kill").map((h) => json(h).id));
  t.ok(before.size < events.length, `killed mid-dispatch (${before.size} of ${events.length} delivered)`);
  srv = await startServer(t, { dataDir, shards: 1, args: SERVER_ARGS });
  t.notOk(srv.stdout().includes(OP), "the full operator key is printed only once");
  await receiver.waitFor(() => events.every((e) => receiver.hits("/kill").some((h) => json(h).id === e.id)), 20_000, "every event after restart");
  t.equal(receiver.maxInFlight("/kill"), 1, "cap of 1 held across the restart");
  t.equal((await api("GET", "/v1/webhooks", B.key)).status, 200, "tenant keys survive");
  t.equal((await post([events[0]])).body.duplicates, 1, "event ids remembered");
});
