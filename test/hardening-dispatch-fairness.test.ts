// Issue 42, item 2: one endpoint must not starve every tenant. Tenant A's endpoint never answers
// (every attempt times out after --webhook-timeout 1) with 21,000 deliveries pending, more than
// the 20,000 the front keeps on their way at once; tenant B's healthy endpoint, and a second
// healthy endpoint of tenant A, must still get their events while A's backlog is pending. Runs
// on state.db, and again on PostgreSQL (the same file with LEIDEX_TEST_POSTGRES). Also the share
// of the hand-out room, in-process: by tenant first, then by endpoint.

import t from "tap";
import { join } from "node:path";
import { startReceiver } from "./helpers/webhook-receiver.js";
import { api, generatedOperatorKey, webhookServerArgs } from "./helpers/webhook-api.js";
import { rerunOnPostgres } from "./helpers/on-postgres.js";
import { POSTGRES_MISSING } from "./helpers/postgres.js";
import { ON_POSTGRES, ROOT, startServer } from "./helpers/server.js";

/** more than the global bound on deliveries on their way (MAX_HANDED, 20,000) */
const HUNG_BACKLOG = 21_000;
/** guards hangs only: the healthy endpoints get their events within a second or two */
const GUARD_MS = 60_000;

t.test("a hung endpoint with 21,000 pending deliveries starves neither another tenant nor its own tenant's other endpoint", async (t) => {
  const srv = await startServer(t, { shards: 1, args: webhookServerArgs(1) });
  const receiver = await startReceiver(t);
  const op = generatedOperatorKey(srv);
  const tenant = async (name: string): Promise<{ id: string; key: string }> => {
    const tn = await api(srv, "POST", "/v1/tenants", op, { name });
    const k = await api(srv, "POST", `/v1/tenants/${tn.body.id}/keys`, op);
    return { id: tn.body.id, key: k.body.key };
  };
  const A = await tenant("fair-a");
  const B = await tenant("fair-b");
  const hook = async (key: string, path: string, types: string[]): Promise<void> => {
    const r = await api(srv, "POST", "/v1/webhooks", key, { url: `${receiver.base}${path}`, event_types: types });
    t.equal(r.status, 201, `webhook ${path} created`);
  };
  // never answers within the 1 s timeout: every attempt times out
  receiver.behave("/fair/a-hung", () => ({ status: 200, delayMs: 5_000 }));
  await hook(A.key, "/fair/a-hung", ["queued"]);
  await hook(A.key, "/fair/a-ok", ["delivered"]);
  await hook(B.key, "/fair/b-ok", ["queued"]);

  const ts = Math.floor(Date.now() / 1000);
  const ev = (tenantId: string, id: string, type: string): Record<string, unknown> => ({
    id,
    tenant_id: tenantId,
    message_id: `m-${id}`,
    type,
    recipient: `${id}@example.com`,
    timestamp: ts,
  });
  for (let b = 0; b < HUNG_BACKLOG / 1000; b++) {
    const events = Array.from({ length: 1000 }, (_, i) => ev(A.id, `hung-${b}-${i}`, "queued"));
    const r = await api(srv, "POST", "/v1/events", op, { events });
    t.equal(r.status, 202, `batch ${b} of the hung endpoint's backlog accepted`);
    if (r.status !== 202) return;
  }
  await receiver.waitFor(() => receiver.hits("/fair/a-hung").length > 0, GUARD_MS, "the hung endpoint's first attempt");

  const bIds = Array.from({ length: 10 }, (_, i) => `b-${i}`);
  const sent = performance.now();
  const aIds = Array.from({ length: 10 }, (_, i) => `a-ok-${i}`);
  t.equal((await api(srv, "POST", "/v1/events", op, { events: bIds.map((id) => ev(B.id, id, "queued")) })).status, 202);
  t.equal((await api(srv, "POST", "/v1/events", op, { events: aIds.map((id) => ev(A.id, id, "delivered")) })).status, 202);
  const ids = (path: string): string[] => [...new Set(receiver.hits(path).map((h) => String(h.headers["x-mail-event-id"])))].sort();
  let error: Error | null = null;
  await receiver
    .waitFor(() => ids("/fair/b-ok").length >= 10 && ids("/fair/a-ok").length >= 10, GUARD_MS, "the healthy endpoints' 10 events each")
    .catch((err: Error) => (error = err));
  t.comment(`the healthy endpoints' 20 events arrived ${Math.round(performance.now() - sent)} ms after they were sent`);
  t.same(ids("/fair/b-ok"), bIds.sort(), "tenant B's healthy endpoint got all 10 of its events");
  t.same(ids("/fair/a-ok"), aIds.sort(), "tenant A's healthy endpoint got all 10 of its events");
  t.equal(error, null, "within the guard");
  const hungSeen = receiver.hits("/fair/a-hung").length;
  t.ok(hungSeen < HUNG_BACKLOG / 2, `meanwhile the hung endpoint's backlog was still pending (${hungSeen} attempts reached it)`);
});

t.test("the hand-out room is shared by tenant, then by endpoint, never past an endpoint's room", async (t) => {
  const { fairShare, handBound } = await import(join(ROOT, "dist/src/webhooks/fair-share.js"));
  t.ok(handBound(4) >= 4 && handBound(4) <= 1000, "an endpoint's bound is a small part of the 20,000 on their way");
  t.ok(handBound(64) >= 64, "never below the cap");
  // tenant X has 100 endpoints with rows waiting, tenant Y one: Y gets half of the room
  const wants = [...Array.from({ length: 100 }, (_, i) => ({ id: `x${i}`, tenant: "X", room: 32 })), { id: "y0", tenant: "Y", room: 32 }];
  let share: Map<string, number> = fairShare(64, wants, 0);
  t.equal(share.get("y0"), 32, "the tenant with one endpoint gets its half");
  t.equal(
    [...share.values()].reduce((a, b) => a + b, 0),
    64,
    "the room is used whole",
  );
  t.ok(
    [...share].filter(([id]) => id.startsWith("x")).every(([, n]) => n === 1),
    "the other tenant's half goes one row each to its endpoints",
  );
  // what one tenant cannot use goes to the others
  share = fairShare(1000, [...wants.slice(0, 2), { id: "y0", tenant: "Y", room: 5 }], 0);
  t.same(Object.fromEntries(share), { x0: 32, x1: 32, y0: 5 }, "every endpoint up to its room when the room suffices");
  // fewer rows than endpoints: the odd rows go round with the turn
  const seen = new Set<string>();
  for (let turn = 0; turn < 100; turn++) for (const id of fairShare(1, wants.slice(0, 100), turn).keys()) seen.add(id);
  t.equal(seen.size, 100, "over 100 turns every endpoint of a tenant gets a row");
  t.same(fairShare(10, [{ id: "z", tenant: "Z", room: 0 }], 0).size, 0, "an endpoint with no room gets nothing");
});

t.test("the same on PostgreSQL", { skip: ON_POSTGRES ? "already on PostgreSQL" : POSTGRES_MISSING }, async (t) => {
  await rerunOnPostgres(t, ["test/hardening-dispatch-fairness.test.ts"]);
});
