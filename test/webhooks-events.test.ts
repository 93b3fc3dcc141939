// Mail event webhooks (issue 5, area C): event intake (/v1/events): validation, idempotency, the
// message state machine's transitions, suppression by a hard bounce, bot detection, and signed
// dispatch to a real HTTPS receiver on 127.0.0.2 with a signature checked by a receiver written
// from SPEC.md; group commit of concurrent batches, in-process.

import t from "tap";
import { join } from "node:path";
import { startReceiver, verifyMailSignature, type Hit } from "./helpers/webhook-receiver.js";
import { json, nowS, webhookBench } from "./helpers/webhook-api.js";
import { ROOT, tempDir } from "./helpers/server.js";

const receiver = await startReceiver(t);
const { OP, A, B, api, ev, post, mkHook } = await webhookBench(t, { receiver });

const hookA = await mkHook(A.key, "/a", ["queued", "delivered", "bounced", "dropped", "deferred", "opened", "clicked", "unsubscribed"]);

t.test(
  "group commit in-process: of batches submitted in one turn, each is all or nothing and a refused one spares its neighbours",
  async (t) => {
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
    const intake = new Intake(db, { directRooms: () => ({ total: Number.MAX_SAFE_INTEGER, of: new Map() }) });
    t.teardown(() => intake.stop());
    const e = (id: string, msg: string, type: string) => ({
      id,
      tenant_id: tn.id,
      message_id: msg,
      type,
      recipient: `${msg}@example.com`,
      timestamp: nowS(),
    });
    await intake.submit([e("p0", "pm0", "delivered")]);
    const before = (db.prepare("SELECT COUNT(*) AS n FROM deliveries").get() as { n: number }).n;
    const results = await Promise.allSettled([
      intake.submit([e("p1", "pm1", "queued")]),
      intake.submit([e("p2", "pm2", "queued"), e("p3", "pm0", "queued")]), // pm0 is delivered: 409, p2 must not stay
      intake.submit([e("p4", "pm4", "queued")]),
    ]);
    t.same(
      results.map((r) => r.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    const refused = results[1] as PromiseRejectedResult;
    t.ok(refused.reason instanceof IntakeError && refused.reason.status === 409, "the refused batch gets its 409");
    const stored = db
      .prepare("SELECT id FROM mail_events ORDER BY id")
      .all()
      .map((r: any) => r.id);
    t.same(stored, ["p0", "p1", "p4"], "the refused batch left nothing behind; its neighbours are stored");
    t.equal((db.prepare("SELECT COUNT(*) AS n FROM deliveries").get() as { n: number }).n, before + 2, "one outbox row per stored event");
    const fulfilled = results[0] as PromiseFulfilledResult<any>;
    t.equal(fulfilled.value.handOff.rows.length, 1, "the hand-off lists the rows written");
  },
);

t.test("event intake: validation, idempotency, transitions, suppression, bot detection, signed dispatch", async (t) => {
  t.equal((await api("POST", "/v1/events", A.key, { events: [ev(A.id, "m0", "queued")] })).status, 403, "tenant key cannot report events");
  t.equal((await api("POST", "/v1/events", null, { events: [] })).status, 401);
  for (const [what, body, raw] of [
    ["bad JSON", undefined, '{"events": ['],
    ["empty list", { events: [] }],
    ["no events", {}],
    ["events not a list", { events: {} }],
    ["unknown type", { events: [ev(A.id, "m0", "exploded")] }],
    ["timestamp as string", { events: [ev(A.id, "m0", "queued", { timestamp: "now" })] }],
    ["bad recipient", { events: [ev(A.id, "m0", "queued", { recipient: "nobody" })] }],
    ["bounce without bounce_type", { events: [ev(A.id, "m0", "bounced")] }],
    ["unknown field", { events: [ev(A.id, "m0", "queued", { colour: "red" })] }],
    ["unknown tenant", { events: [ev("tn_ghost", "m0", "queued")] }],
  ] as const) {
    const r = await api("POST", "/v1/events", OP, body, raw);
    t.equal(r.status, 400, what);
    t.type(r.body?.error, "string");
  }
  t.equal(
    (
      await api(
        "POST",
        "/v1/events",
        OP,
        undefined,
        JSON.stringify({ events: [ev(A.id, "m0", "queued", { reason: "x".repeat(1_100_000) })] }),
      )
    ).status,
    413,
  );

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
  const goodA = ev(A.id, "g1", "queued"),
    goodB = ev(A.id, "g2", "queued"),
    badHalf = ev(A.id, "g3", "queued");
  const together = await Promise.all([post([goodA]), post([badHalf, ev(A.id, "m1", "queued")]), post([goodB])]);
  t.same(
    together.map((r) => r.status),
    [202, 409, 202],
    "concurrent batches: a refused one does not take its neighbours down",
  );
  t.same(
    (await post([goodA, goodB, badHalf])).body,
    { accepted: 1, duplicates: 2, deliveries: 1 },
    "its neighbours were stored, it was not",
  );

  // hard bounce -> suppression -> next queued is dropped with the reason
  t.equal(
    (
      await post([
        ev(A.id, "m4", "queued", { recipient: "Gone@Example.com" }),
        ev(A.id, "m4", "bounced", { recipient: "Gone@Example.com", bounce_type: "hard", smtp_code: 550 }),
      ])
    ).status,
    202,
  );
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
    ev(A.id, "m7", "clicked", {
      user_agent: "Mozilla/5.0 (Windows NT 10.0) Firefox/128.0",
      http_method: "HEAD",
      url: "https://x.example/",
      timestamp: later,
    }),
    ev(A.id, "m7", "clicked", {
      user_agent: "Mozilla/5.0 (Windows NT 10.0) Firefox/128.0",
      url: "https://x.example/",
      timestamp: delivered.timestamp,
    }),
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
  t.match(json(byId(q.id)), {
    id: q.id,
    type: "queued",
    tenant_id: A.id,
    created_at: String,
    data: { message_id: "m1", recipient: "m1@example.com" },
  });
  t.match(
    json(byId(dropped.id)),
    { type: "dropped", data: { reason: "suppressed", suppression_reason: "hard_bounce" } },
    "queued to a suppressed address is dropped",
  );
  t.same(
    opens.map((o) => [json(byId(o.id)).data.machine, json(byId(o.id)).data.machine_reason]),
    [
      [true, "google_image_proxy"],
      [true, "head_request"],
      [true, "within_seconds_of_delivery"],
      [false, null],
    ],
    "bot detection",
  );
  t.equal(receiver.hits("/a").filter((h) => json(h).id === q.id).length, 1, "a duplicate event is not dispatched again");
});
