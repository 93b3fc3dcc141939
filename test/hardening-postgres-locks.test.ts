// Issue 42, item 7: with --database, a table another session holds locked (LOCK TABLE … ACCESS
// EXCLUSIVE in an open transaction) must not hang writes for as long as the lock lasts. A write
// waits a few seconds at most (lock_timeout, statement_timeout, a bounded wait for a pooled
// connection) and answers 503 with Retry-After in its area's shape, while the lock is still held;
// /health and what is served from memory go on answering; once the lock is gone the same writes
// succeed. With the pool filled by many writes at once, every one is answered, none hangs.
//
// The tests release each lock only after the answers arrived: an answer that comes only once the
// lock is gone is a failure. The guards are generous and only catch hangs.

import t from "tap";
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { keyedRequest, type KeyedResponse } from "./helpers/keys.js";
import { POSTGRES_MISSING, privatePostgres } from "./helpers/postgres.js";
import { startServer, type RunningServer } from "./helpers/server.js";
import { api, webhookServerArgs, type Res } from "./helpers/webhook-api.js";
import { startReceiver } from "./helpers/webhook-receiver.js";

const KEY = "locks-bootstrap-key-0123456789";
const OPERATOR = "locks-operator-key-0123456789";
/** the longest a write may take before it counts as hanging (the defaults answer within seconds) */
const GUARD_MS = 30_000;

/** `p`'s outcome, or "hung" when it did not settle within `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), ms);
  });
  try {
    return await Promise.race([p, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** A session that holds `tables` locked ACCESS EXCLUSIVE in an open transaction until released. */
async function lockTables(url: string, tables: string[]): Promise<{ client: pg.Client; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  await client.query("BEGIN");
  await client.query(`LOCK TABLE ${tables.join(", ")} IN ACCESS EXCLUSIVE MODE`);
  return {
    client,
    release: async () => {
      await client.query("COMMIT").catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

const retryAfterOf = (value: string | string[] | null | undefined): number => Number(Array.isArray(value) ? value[0] : value);

t.test("PostgreSQL: a locked table answers writes 503 at once; reads and /health go on", { skip: POSTGRES_MISSING }, async (t) => {
  const cluster = await privatePostgres(t);
  const receiver = await startReceiver(t);
  const srv: RunningServer = await startServer(t, {
    args: [...webhookServerArgs(1), "--database", cluster.url, "--api-key", KEY, "--operator-key", OPERATOR],
    env: { LEIDEX_DATABASE: undefined },
  });
  const keys = (init: { method?: string; body?: unknown } = {}): Promise<KeyedResponse> =>
    keyedRequest(srv.port, "/keys", { key: KEY, ...init });
  const newKey = (): Promise<KeyedResponse> => keys({ method: "POST", body: { actions: ["documents:search"], collections: ["lei"] } });
  const call = (method: string, path: string, body?: unknown): Promise<Res> => api(srv, method, path, OPERATOR, body);
  const newTenant = (name: string): Promise<Res> => call("POST", "/v1/tenants", { name });

  // what exists before the locks: a key and a tenant, served from memory while the locks last
  t.equal((await newKey()).status, 201, "a key made before any lock");
  const tenant = await newTenant("before the lock");
  t.equal(tenant.status, 201, "a tenant made before any lock");
  const tenantId = tenant.body.id as string;

  t.test("POST /keys with api_keys locked: 503 in the keyed API's shape before the lock is released", async (t) => {
    const lock = await lockTables(cluster.url, ["api_keys"]);
    let released = false;
    t.teardown(() => (released ? undefined : lock.release()));
    const pending = newKey();
    const got = await within(pending, GUARD_MS);
    t.not(got, "hung", `POST /keys answered while the lock was held (within ${GUARD_MS} ms)`);
    if (got !== "hung") {
      t.equal(got.status, 503, "503, not a 500 and not a wait for the lock");
      t.ok(retryAfterOf(got.headers["retry-after"]) > 0, `with Retry-After (${String(got.headers["retry-after"])})`);
      t.type(got.body?.message, "string", `in the keyed API's shape {"message": …}: ${got.text}`);
      t.equal(got.body?.error, undefined, "not the other areas' shape");
    }
    // meanwhile (the lock still held): /health, and what is served from memory
    const health = await within(srv.get("/health"), GUARD_MS);
    t.equal(health !== "hung" && health.status, 200, "/health answers");
    const listed = await within(keys(), GUARD_MS);
    t.ok(listed !== "hung" && listed.status === 200 && listed.body.keys.length === 1, "GET /keys answers from memory");
    const search = await keyedRequest(srv.port, "/collections/lei/documents/search?q=bank&query_by=legalName&per_page=1", { key: KEY });
    t.equal(search.status, 200, "a keyed search answers");

    await lock.release();
    released = true;
    const late = got === "hung" ? await pending : null; // the old code answers only now
    t.equal((await newKey()).status, 201, "once the lock is released, POST /keys succeeds");
    const after = await keys();
    const expected = 2 + (late?.status === 201 ? 1 : 0);
    t.equal(after.body.keys.length, expected, "the refused write stored nothing; the later one is listed");
  });

  t.test("POST /v1/tenants with tenants locked: 503 in area C's shape; intake too; /health goes on", async (t) => {
    const lock = await lockTables(cluster.url, ["tenants"]);
    let released = false;
    t.teardown(() => (released ? undefined : lock.release()));
    const pending = newTenant("while locked");
    const events = call("POST", "/v1/events", {
      events: [{ id: "ev-locked-1", tenant_id: tenantId, message_id: "m1", type: "queued", recipient: "a@example.com", timestamp: 1 }],
    });
    const health = await within(srv.get("/health"), GUARD_MS);
    t.equal(health !== "hung" && health.status, 200, "/health answers while the write waits");
    const got = await within(pending, GUARD_MS);
    t.not(got, "hung", `POST /v1/tenants answered while the lock was held (within ${GUARD_MS} ms)`);
    if (got !== "hung") {
      t.equal(got.status, 503, "503, not a 500 and not a wait for the lock");
      t.ok(retryAfterOf(got.headers.get("retry-after")) > 0, `with Retry-After (${got.headers.get("retry-after")})`);
      t.type(got.body?.error, "string", `in area C's shape {"error": …}: ${got.text}`);
    }
    const intake = await within(events, GUARD_MS);
    t.not(intake, "hung", "POST /v1/events (which reads tenants) answered while the lock was held");
    if (intake !== "hung") {
      t.equal(intake.status, 503, "event intake: 503");
      t.ok(retryAfterOf(intake.headers.get("retry-after")) > 0, "with Retry-After");
      t.type(intake.body?.error, "string", "in area C's shape");
    }
    const listed = await call("GET", "/v1/tenants");
    t.equal(listed.status, 200, "GET /v1/tenants answers from memory");

    await lock.release();
    released = true;
    if (got === "hung") await pending;
    if (intake === "hung") await events;
    t.equal((await newTenant("after the lock")).status, 201, "once the lock is released, POST /v1/tenants succeeds");
    const again = await call("POST", "/v1/events", {
      events: [{ id: "ev-locked-2", tenant_id: tenantId, message_id: "m2", type: "queued", recipient: "b@example.com", timestamp: 1 }],
    });
    t.equal(again.status, 202, "and event intake accepts again");
  });

  t.test("many writes at once fill the pool while both tables stay locked: every one is answered", async (t) => {
    const lock = await lockTables(cluster.url, ["api_keys", "tenants"]);
    let released = false;
    t.teardown(() => (released ? undefined : lock.release()));
    const before = (await keys()).body.keys.length as number;
    const writes: Promise<{ what: string; status: number; retryAfter: number; shaped: boolean }>[] = [];
    for (let i = 0; i < 30; i++) {
      writes.push(
        newKey().then((r) => ({
          what: "POST /keys",
          status: r.status,
          retryAfter: retryAfterOf(r.headers["retry-after"]),
          shaped: typeof r.body?.message === "string",
        })),
      );
      writes.push(
        newTenant(`crowd ${i}`).then((r) => ({
          what: "POST /v1/tenants",
          status: r.status,
          retryAfter: retryAfterOf(r.headers.get("retry-after")),
          shaped: r.status === 201 || typeof r.body?.error === "string",
        })),
      );
    }
    // the front keeps answering while the pool is full
    await sleep(200);
    const health = await within(srv.get("/health"), GUARD_MS);
    t.equal(health !== "hung" && health.status, 200, "/health answers while every connection of the pool waits");
    const all = await within(Promise.all(writes), 2 * GUARD_MS);
    t.not(all, "hung", `all ${writes.length} writes answered while the locks were held`);
    if (all !== "hung") {
      const statuses = new Map<number, number>();
      for (const w of all) statuses.set(w.status, (statuses.get(w.status) ?? 0) + 1);
      t.same(
        [...statuses.keys()].filter((s) => s !== 503 && s !== 201),
        [],
        `each is a 503 or a success: ${JSON.stringify([...statuses])}`,
      );
      t.ok((statuses.get(503) ?? 0) > 0, "the locked tables refused writes");
      t.ok(
        all.filter((w) => w.status === 503).every((w) => w.retryAfter > 0 && w.shaped),
        "every 503 carries Retry-After, in its area's shape",
      );
    }
    await lock.release();
    released = true;
    if (all === "hung") await Promise.all(writes);
    t.equal((await newKey()).status, 201, "after the locks, POST /keys succeeds");
    t.equal((await newTenant("after the crowd")).status, 201, "and POST /v1/tenants");
    const stored = (await keys()).body.keys.length as number;
    const created = all === "hung" ? null : all.filter((w) => w.what === "POST /keys" && w.status === 201).length;
    if (created !== null) t.equal(stored, before + created + 1, "every key answered 201 is stored, and no refused one");
    t.equal((await srv.get("/health")).status, 200, "the server is still up");
    t.notMatch(srv.stderr(), /internal error|Unhandled|TypeError/, "no 500s or crashes in the log");
  });

  t.test("background work survives the timeouts: a key set refreshed, leases renewed, deliveries sent", async (t) => {
    const other = new pg.Client({ connectionString: cluster.url });
    other.on("error", () => undefined);
    await other.connect();
    t.teardown(() => other.end().catch(() => undefined));
    // another node's write as this node hears it: the key set's version moves on while api_keys
    // is locked, so this node's reads of it time out, again and again, until the lock is gone
    const lock = await lockTables(cluster.url, ["api_keys"]);
    let released = false;
    t.teardown(() => (released ? undefined : lock.release()));
    const { rows } = await other.query<{ version: string }>(
      "UPDATE state_versions SET version = version + 1 WHERE name = 'api_keys' RETURNING version",
    );
    const version = Number(rows[0].version);
    await sleep(5_000); // a lock timeout and more: the node's reads have failed at least once
    const value = "written-by-another-node-0123456789";
    await lock.client.query(
      `INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete, version)
       VALUES ($1, 'another node', '["documents:search"]', '["lei"]', 64723363199, false, $2)`,
      [value, version],
    );
    await lock.release(); // commits the key with the lock's end
    released = true;
    const search = "/collections/lei/documents/search?q=bank&query_by=legalName&per_page=1";
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await keyedRequest(srv.port, search, { key: value })).status;
      if (status !== 200) await sleep(100);
    }
    t.equal(status, 200, "the node read the key set again once the lock was gone");

    // endpoint leases: renewals fail while endpoint_leases is locked, and go on after
    const tenantKey = await call("POST", `/v1/tenants/${tenantId}/keys`);
    t.equal(tenantKey.status, 201, "a tenant key");
    const hook = await api(srv, "POST", "/v1/webhooks", tenantKey.body.key as string, {
      url: `${receiver.base}/after-locks`,
      event_types: ["queued"],
    });
    t.equal(hook.status, 201, "a webhook");
    const leases = await lockTables(cluster.url, ["endpoint_leases", "dispatch_nodes"]);
    let leasesReleased = false;
    t.teardown(() => (leasesReleased ? undefined : leases.release()));
    await sleep(5_000);
    await leases.release();
    leasesReleased = true;
    t.match(srv.stdout() + srv.stderr(), /renewing leases failed/, "the renewals timed out meanwhile, and the node said so");
    const sent = await call("POST", "/v1/events", {
      events: [{ id: "ev-after-locks", tenant_id: tenantId, message_id: "m3", type: "queued", recipient: "c@example.com", timestamp: 1 }],
    });
    t.equal(sent.status, 202, "an event accepted after the locks");
    await receiver.waitFor(() => receiver.hits("/after-locks").length > 0, GUARD_MS, "the delivery");
    t.pass("and delivered: dispatch went on");
    t.equal((await srv.get("/health")).status, 200, "the server is still up");
  });
});
