// Area C hardening (issue 20, items 6, 13, 14, 16, 21, 22, 24): SSRF spellings of loopback,
// control characters in receiver URLs, 405 for other methods, the response snippet capped in
// bytes, a full state.db answering 503 (a real SQLITE_FULL through PRAGMA max_page_count), the
// bounded intake queue and the pending-backlog caps, per-endpoint connection pools, and clock
// steps that must not prune or disable early. Checks behaviour only, never timing thresholds.

import t from "tap";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CA_FILE, RECEIVER_HOST, startReceiver } from "./helpers/webhook-receiver.js";
import { api, generatedOperatorKey, webhookServerArgs, type Res } from "./helpers/webhook-api.js";
import { ON_POSTGRES, ROOT, startServer, tempDir, type RunningServer, type Teardownable } from "./helpers/server.js";

process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
const SERVER_ARGS = webhookServerArgs(1);

async function mkTenant(srv: RunningServer, op: string, name: string): Promise<{ id: string; key: string }> {
  const tn = await api(srv, "POST", "/v1/tenants", op, { name });
  const k = await api(srv, "POST", `/v1/tenants/${tn.body.id}/keys`, op);
  return { id: tn.body.id, key: k.body.key };
}
let evSeq = 0;
const events = (tenant: string, n: number, type = "queued"): Record<string, unknown>[] =>
  Array.from({ length: n }, () => {
    const i = ++evSeq;
    return {
      id: `hev-${process.pid}-${i}`,
      tenant_id: tenant,
      message_id: `hm-${i}`,
      type,
      recipient: `r${i}@example.com`,
      timestamp: Math.floor(Date.now() / 1000),
    };
  });

const srv = await startServer(t, { shards: 1, args: SERVER_ARGS });
const receiver = await startReceiver(t);
const OP = generatedOperatorKey(srv);
const A = await mkTenant(srv, OP, "hard-a");

t.test("item 13: every IPv6 spelling of a private IPv4 address is refused at creation and at connect", async (t) => {
  const { isGlobalAddress, embeddedV4, UrlGuard } = await import(join(ROOT, "dist/src/webhooks/url-guard.js"));
  for (const host of [
    "[::127.0.0.1]",
    "[::ffff:0:127.0.0.1]",
    "[::ffff:127.0.0.1]",
    "[::7f00:1]",
    "[::ffff:0:7f00:1]",
    "[64:ff9b::127.0.0.1]",
    "[64:ff9b::a00:1]",
    "[::ffff:0:10.0.0.1]",
    "[::169.254.169.254]",
    "[2002:7f00:1::1]",
    "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
    "[64:ff9b:1::808:808]",
  ]) {
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
  const fake =
    (address: string) => (_h: string, _o: object, cb: (err: Error | null, list: { address: string; family: number }[]) => void) =>
      cb(null, [{ address, family: 6 }]);
  for (const a of ["::7f00:1", "::ffff:0:7f00:1"]) {
    const err = await new Promise<Error | null>((res) =>
      guard.lookupFor(fake(a) as never)("evil.example.com", { all: true }, (e: Error | null) => res(e)),
    );
    t.match(err?.message, /blocked/, `a name resolving to ${a} is refused at connect`);
  }
});

t.test("item 14: control characters in receiver URLs are refused; other methods are 405 with Allow", async (t) => {
  for (const url of [
    `${receiver.base}/a\r\nX-Injected: 1`,
    `${receiver.base}/a\nb`,
    `${receiver.base}/a\tb`,
    `${receiver.base}/a\u0000b`,
  ]) {
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
  t.ok(
    Buffer.byteLength(r.body.response_snippet) <= 1024,
    `snippet of 1,024 invalid bytes is ${Buffer.byteLength(r.body.response_snippet)} bytes`,
  );
  const log = await api(srv, "GET", `/v1/webhooks/${hook.body.id}/deliveries`, A.key);
  t.ok(Buffer.byteLength(log.body.deliveries[0].response_snippet) <= 1024, "the delivery log keeps the same");
});

t.test("item 21: a full state.db answers 503 with Retry-After, logs once, and keeps serving reads", { skip: ON_POSTGRES }, async (t) => {
  const full = await startServer(t, { shards: 1, args: SERVER_ARGS, env: { LEIDEX_TEST_STATE_DB_HEADROOM_PAGES: "3" } });
  const op = generatedOperatorKey(full);
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
  // the keyed API's writes go through the front's one answer to a write failure
  const boot = readFileSync(join(full.dataDir, "bootstrap-key"), "utf8").trim();
  const keyed = { "x-typesense-api-key": boot, "content-type": "application/json" };
  let keyWrite: Awaited<ReturnType<RunningServer["get"]>> | null = null;
  for (let i = 0; i < 400 && !keyWrite; i++) {
    const r = await full.get("/keys", {
      method: "POST",
      headers: keyed,
      body: JSON.stringify({ actions: ["documents:search"], collections: ["*"], description: `k${i}-${"x".repeat(150)}` }),
    });
    if (r.status !== 201) keyWrite = r;
  }
  t.equal(keyWrite?.status, 503, "keys: 503, not 500");
  t.type(keyWrite?.body?.message, "string", "in the keyed API's {message} shape");
  const synonym = await full.get("/collections/lei/synonyms/full-disk", {
    method: "PUT",
    headers: keyed,
    body: JSON.stringify({ synonyms: Array.from({ length: 40 }, (_, i) => `${"w".repeat(150)}${i}`) }),
  });
  t.equal(synonym.status, 503, `synonyms: 503 (${synonym.status} ${synonym.text})`);
  t.equal((await full.get("/keys", { headers: keyed })).status, 200, "key reads still work");
  t.equal((await api(full, "GET", "/v1/tenants", op)).status, 200, "reads still work");
  t.equal((await api(full, "GET", "/v1/webhooks", tn.key)).status, 200);
  t.equal((await full.get("/health")).status, 200);
  for (let i = 0; i < 20; i++) await api(full, "POST", "/v1/events", op, { events: events(tn.id, 1000) });
  const lines = full
    .stderr()
    .split("\n")
    .filter((l) => l.trim() !== "");
  t.notOk(
    lines.some((l) => /^\s+at /.test(l)),
    "no stack traces",
  );
  t.ok(lines.filter((l) => /state\.db/.test(l)).length <= 2, `at most one line a minute (got ${lines.length} lines)`);
  t.match(full.stderr(), /SQLITE_FULL/, "the first failure is named");
});

/** An in-process area C store on a fresh state.db: tenants, webhooks, outbox, intake. */
async function inProcess(
  t: Teardownable,
  intakeOptions: Record<string, unknown> | ((db: unknown) => Record<string, unknown>) = {},
  hooks = 1,
) {
  const { openStateDb } = await import(join(ROOT, "dist/src/store/state-db.js"));
  const { TenantStore } = await import(join(ROOT, "dist/src/webhooks/tenant-store.js"));
  const { WebhookStore } = await import(join(ROOT, "dist/src/webhooks/webhook-store.js"));
  const { SuppressionStore } = await import(join(ROOT, "dist/src/webhooks/suppression-store.js"));
  const { Outbox } = await import(join(ROOT, "dist/src/webhooks/outbox.js"));
  const { Intake } = await import(join(ROOT, "dist/src/webhooks/intake.js"));
  const db = openStateDb(tempDir(t, "leidex-hard-intake-"));
  t.teardown(() => db.close());
  const tenants = new TenantStore(db);
  const webhooks = new WebhookStore(db);
  const tn = tenants.create("in-process");
  const ids: string[] = [];
  for (let i = 0; i < hooks; i++) ids.push(webhooks.create(tn.id, `https://receiver.example.com/${i}`, ["queued"], 4).id);
  const outbox = new Outbox(db);
  new SuppressionStore(db);
  const intake = new Intake(db, typeof intakeOptions === "function" ? intakeOptions(db) : intakeOptions);
  t.teardown(() => intake.stop());
  const count = (sql: string, ...args: unknown[]): number => (db.prepare(sql).get(...args) as { n: number }).n;
  return { db, tenant: tn.id, hooks: ids, intake, outbox, count };
}

t.test("item 16: intake is a bounded queue; over the bound a batch is refused at once with 503", { skip: ON_POSTGRES }, async (t) => {
  const { IntakeError } = await import(join(ROOT, "dist/src/webhooks/intake.js"));
  const a = await inProcess(t, { queuedEvents: 3000, sliceMs: 0 });
  const results = await Promise.allSettled(Array.from({ length: 8 }, () => a.intake.submit(events(a.tenant, 1000))));
  t.same(
    results.map((r) => r.status),
    ["fulfilled", "fulfilled", "fulfilled", "rejected", "rejected", "rejected", "rejected", "rejected"],
    "three batches fit the queue",
  );
  const refused = (results[3] as PromiseRejectedResult).reason;
  t.ok(refused instanceof IntakeError && refused.status === 503 && refused.retryAfterSeconds! > 0, "503 with Retry-After");
  t.equal(a.count("SELECT COUNT(*) AS n FROM mail_events"), 3000, "the refused batches stored nothing");
});

t.test(
  "item 16: intake is written off the front's event loop: mid-write, /health and state.db reads are answered before the batch's 202",
  { skip: ON_POSTGRES },
  async (t) => {
    // the intake writer holds its transaction open while this file exists (LEIDEX_TEST_INTAKE_HOLD_FILE);
    // time scale 1 so that no background write of the front (pruning) wants the lock meanwhile
    const hold = join(tempDir(t, "leidex-intake-hold-"), "hold");
    writeFileSync(hold, "");
    t.teardown(() => {
      if (existsSync(hold)) unlinkSync(hold);
    });
    const held = await startServer(t, {
      shards: 1,
      args: SERVER_ARGS,
      env: { LEIDEX_TEST_INTAKE_HOLD_FILE: hold, LEIDEX_WEBHOOK_TIME_SCALE: "1" },
    });
    const op = generatedOperatorKey(held);
    const tn = await mkTenant(held, op, "held");
    let acknowledged = false;
    const post = api(held, "POST", "/v1/events", op, { events: events(tn.id, 1000) }).then((r) => {
      acknowledged = true;
      return r;
    });
    await receiver.waitFor(() => existsSync(`${hold}.writing`), 30_000, "the intake slice to be mid-write");
    t.equal((await held.get("/health")).status, 200, "/health answered while the slice is being written");
    t.equal((await api(held, "GET", `/v1/tenants/${tn.id}`, op)).status, 200, "a read of state.db answered meanwhile");
    t.equal((await api(held, "GET", "/v1/suppressions", tn.key)).status, 200);
    t.notOk(acknowledged, "and the batch is not acknowledged before its commit");
    unlinkSync(hold);
    const r = await post;
    t.equal(r.status, 202, "202 once committed");
    t.equal(r.body.accepted, 1000);
  },
);

t.test(
  "item 16: an intake writer that dies is replaced; its batches are refused with 503, never lost silently, and their rows still go out",
  { skip: ON_POSTGRES },
  async (t) => {
    const dies = await startServer(t, { shards: 1, args: SERVER_ARGS, env: { LEIDEX_TEST_INTAKE_EXIT_AFTER: "intake-dies-here" } });
    const op = generatedOperatorKey(dies);
    const tn = await mkTenant(dies, op, "dies");
    const hook = await api(dies, "POST", "/v1/webhooks", tn.key, { url: `${receiver.base}/after-death`, event_types: ["queued"] });
    t.equal(hook.status, 201);
    const batch = events(tn.id, 20);
    batch[0].id = "intake-dies-here";
    // the writer exits right after committing this batch, before answering: stored, never acknowledged
    const first = await api(dies, "POST", "/v1/events", op, { events: batch });
    t.equal(first.status, 503, "the batch in flight is refused, not left hanging");
    t.ok(Number(first.headers.get("retry-after")) > 0, "with Retry-After");
    let again = await api(dies, "POST", "/v1/events", op, { events: batch });
    for (let i = 0; i < 100 && again.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await api(dies, "POST", "/v1/events", op, { events: batch });
    }
    t.equal(again.status, 202, "a new writer takes the retry");
    t.same(again.body, { accepted: 0, duplicates: 20, deliveries: 0 }, "the retry finds the batch stored once (idempotent by event id)");
    // its rows were stored leased for direct hand-off; they are released to the outbox, not stranded
    await receiver.waitFor(
      () => new Set(receiver.hits("/after-death").map((h) => JSON.parse(h.raw.toString("utf8")).id)).size === 20,
      30_000,
      "the 20 deliveries",
    );
    t.match(dies.stdout() + dies.stderr(), /intake writer exited/, "the restart is logged");
    const later = await api(dies, "POST", "/v1/events", op, { events: events(tn.id, 5) });
    t.equal(later.status, 202, "intake goes on");
  },
);

t.test(
  "item 16: the pending backlog is capped per endpoint and per tenant; a batch over a cap is refused whole (429)",
  { skip: ON_POSTGRES },
  async (t) => {
    const { Backlog } = await import(join(ROOT, "dist/src/webhooks/backlog.js"));
    const { IntakeError } = await import(join(ROOT, "dist/src/webhooks/intake.js"));
    let caps!: { pendingOfEndpoint(id: string): number; pendingOfTenant(id: string): number };
    const a = await inProcess(t, (db) => ({ backlog: (caps = new Backlog(db, { perEndpoint: 1500, perTenant: 2500 })) }), 2);
    const intake = a.intake;
    await intake.submit(events(a.tenant, 1000));
    t.equal(caps.pendingOfEndpoint(a.hooks[0]), 1000);
    t.equal(caps.pendingOfTenant(a.tenant), 2000);
    const stored = a.count("SELECT COUNT(*) AS n FROM mail_events");
    const overEndpoint = await intake.submit(events(a.tenant, 600)).catch((e: unknown) => e);
    t.ok(
      overEndpoint instanceof IntakeError && overEndpoint.status === 429 && overEndpoint.retryAfterSeconds! > 0,
      "over the endpoint cap: 429 with Retry-After",
    );
    t.match((overEndpoint as Error).message, /endpoint .* 1500 .*cap/);
    const overTenant = await intake.submit(events(a.tenant, 400)).catch((e: unknown) => e);
    t.ok(overTenant instanceof IntakeError && overTenant.status === 429, "over the tenant cap: 429");
    t.match((overTenant as Error).message, /tenant .* 2500/);
    t.equal(a.count("SELECT COUNT(*) AS n FROM mail_events"), stored, "refused batches stored nothing");
    t.equal(caps.pendingOfTenant(a.tenant), 2000, "and counted nothing");
    // deliveries leave the backlog (delivered, failed, deleted): room again
    a.db.prepare("UPDATE deliveries SET status = 'delivered' WHERE seq IN (SELECT seq FROM deliveries LIMIT 500)").run();
    a.db.prepare("DELETE FROM deliveries WHERE seq IN (SELECT seq FROM deliveries WHERE status = 'pending' LIMIT 300)").run();
    a.outbox.failPending(a.hooks[1]);
    t.equal(
      caps.pendingOfEndpoint(a.hooks[0]) + caps.pendingOfEndpoint(a.hooks[1]),
      a.count("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'pending'"),
      "counts follow the rows",
    );
    t.same(await intake.submit(events(a.tenant, 400)).then((r: { accepted: number }) => r.accepted), 400, "accepted once there is room");
    // a state.db with pending rows from before the caps: counted at start
    a.db.exec("DROP TABLE pending_counts");
    const again = new Backlog(a.db);
    t.equal(
      again.pendingOfTenant(a.tenant),
      a.count("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'pending'"),
      "recounted from the outbox",
    );
  },
);

t.test("item 6: one tenant's slow endpoint at its cap does not hold up another tenant's endpoint on the same host:port", async (t) => {
  const slowSrv = await startServer(t, {
    shards: 1,
    args: [
      "--webhook-allow-hosts",
      RECEIVER_HOST,
      "--webhook-ca-file",
      CA_FILE,
      "--webhook-timeout",
      "60",
      "--dispatchers",
      "1",
      "--shards",
      "1",
    ],
  });
  const op = generatedOperatorKey(slowSrv);
  const slowTenant = await mkTenant(slowSrv, op, "slow");
  const fastTenant = await mkTenant(slowSrv, op, "fast");
  const rcv = await startReceiver(t);
  rcv.behave("/slow", () => ({ status: 200, delayMs: 120_000 })); // answered only when the test ends
  const slow = await api(slowSrv, "POST", "/v1/webhooks", slowTenant.key, {
    url: `${rcv.base}/slow`,
    event_types: ["queued"],
    max_concurrency: 64,
  });
  const fast = await api(slowSrv, "POST", "/v1/webhooks", fastTenant.key, {
    url: `${rcv.base}/fast`,
    event_types: ["queued"],
    max_concurrency: 4,
  });
  t.equal(slow.status, 201);
  t.equal(fast.status, 201);
  t.equal((await api(slowSrv, "POST", "/v1/events", op, { events: events(slowTenant.id, 100) })).status, 202);
  await rcv.waitFor(() => rcv.hits("/slow").length >= 64, 30_000, "the slow endpoint at its cap of 64");
  t.equal((await api(slowSrv, "POST", "/v1/events", op, { events: events(fastTenant.id, 10) })).status, 202);
  await rcv.waitFor(
    () => rcv.hits("/fast").length >= 10,
    30_000,
    "the other tenant's deliveries while the slow ones hold their connections",
  );
  t.equal(rcv.hits("/slow").length, 64, "the slow endpoint still has exactly its cap in flight");
  t.equal(rcv.hits("/fast").length, 10, "the other tenant's 10 deliveries arrived meanwhile");
});

t.test("item 24: a forward clock step prunes nothing early and disables no endpoint", { skip: ON_POSTGRES }, async (t) => {
  const { TrustedClock } = await import(join(ROOT, "dist/src/time/trusted-clock.js"));
  const { OutboxPruner } = await import(join(ROOT, "dist/src/webhooks/outbox-pruner.js"));
  const { verdict, DISABLE_AFTER_MS } = await import(join(ROOT, "dist/src/webhooks/retry.js"));
  const DAY = 86_400_000;
  const T = 1_700_000_000_000;
  let wall = T;
  let mono = 1000;
  const clock = new TrustedClock(
    () => wall,
    () => mono,
  );
  const a = await inProcess(t);
  await a.intake.submit(events(a.tenant, 3));
  a.db.prepare("UPDATE deliveries SET status = 'delivered', finished_at = ?").run(T - 60_000);
  a.db.exec(
    "INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, trigger, status_code, error, duration_ms, response_snippet, attempted_at, next_attempt_at, outcome) SELECT id, webhook_id, event_id, event_type, 1, 'scheduled', 200, NULL, 1, 'ok', " +
      (T - 60_000) +
      ", NULL, 'success' FROM deliveries",
  );
  const pruner = new OutboxPruner(a.outbox, {
    scale: 1,
    nowMs: () => wall,
    decisionNowMs: () => clock.now(),
    log: () => undefined,
    metrics: null,
  });
  wall += 40 * DAY; // the system clock is stepped forward 40 days; a minute really passed
  mono += 60_000;
  await pruner.run();
  t.equal(a.count("SELECT COUNT(*) AS n FROM deliveries"), 3, "delivered rows kept: a day has not really passed");
  t.equal(a.count("SELECT COUNT(*) AS n FROM delivery_attempts"), 3, "the delivery log kept");
  mono += 2 * DAY; // two days really pass
  wall += 2 * DAY;
  await pruner.run();
  t.equal(a.count("SELECT COUNT(*) AS n FROM deliveries"), 0, "pruned once their day has really passed");
  t.equal(a.count("SELECT COUNT(*) AS n FROM delivery_attempts"), 3, "the log keeps its 30 days");
  // an endpoint failing for a minute when the clock jumps 6 days is retried, not disabled
  const base = { statusCode: 500, attempt: 2, retryAfter: null, failingSinceMs: T, scale: 1, random: () => 0 };
  t.equal(verdict({ ...base, nowMs: T + 6 * DAY, decisionNowMs: T + 60_000 }).kind, "retry", "a 6-day step does not disable");
  t.equal(verdict({ ...base, nowMs: T + DISABLE_AFTER_MS, decisionNowMs: T + DISABLE_AFTER_MS }).kind, "disable", "five real days do");
  // a backward step makes decisions later, never earlier
  const back = new TrustedClock(
    () => wall,
    () => mono,
  );
  wall -= 10 * DAY;
  t.equal(back.now(), wall, "behind the wall clock after a backward step");
});
