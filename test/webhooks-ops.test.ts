// Mail event webhooks (issue 5, area C), operations: the DNS check when a receiver URL is set,
// replacing a dispatcher thread that dies, and pruning finished outbox rows. Real servers, real
// HTTPS receivers (test-only certificate), real name resolution:
// - DNS: `nothing.invalid` (RFC 6761: never resolves) is refused at creation and update;
//   `localhost`, allowed with --webhook-allow-hosts, is resolved and dispatched to on 127.0.0.1.
//   The private-answer branch (a name resolving to 10.x) runs in-process with a fake resolver,
//   like the connect-time check in webhooks-subscriptions.test.ts.
// - Restart: LEIDEX_TEST_DISPATCHER_CRASH_AFTER (test-only) makes every dispatcher thread throw
//   after n results; every delivery must still arrive, signed, with the cap held at the receiver,
//   and /metrics counts the restarts.
// - Pruning: LEIDEX_WEBHOOK_TIME_SCALE=1e6 turns a day of retention into 86 ms and 30 days into
//   2.6 s; the store (state.db, or the database on PostgreSQL) is read directly to see which outbox rows are left.

import t from "tap";
import { join } from "node:path";
import { CA_FILE, RECEIVER_HOST, startReceiver, verifyMailSignature, type Hit, type Receiver } from "./helpers/webhook-receiver.js";
import { api, generatedOperatorKey, stateRows } from "./helpers/webhook-api.js";
import { ROOT, startServer, tempDir, type RunningServer } from "./helpers/server.js";

const json = (h: Hit): any => JSON.parse(h.raw.toString("utf8"));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const nowS = (): number => Math.floor(Date.now() / 1000);
const metric = (text: string, name: string): number => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? NaN);

/** A server with extra environment (read by the child at spawn), its operator key and one tenant. */
async function serverWith(
  env: Record<string, string>,
  args: string[],
): Promise<{ srv: RunningServer; op: string; tenant: string; key: string }> {
  const dataDir = tempDir(t, "leidex-webhooks-ops-");
  const srv = await startServer(t, {
    dataDir,
    shards: 1,
    env,
    args: ["--webhook-ca-file", CA_FILE, "--webhook-timeout", "1", "--dispatchers", "2", ...args],
  });
  const op = generatedOperatorKey(srv);
  const tn = await api(srv, "POST", "/v1/tenants", op, { name: "ops" });
  const k = await api(srv, "POST", `/v1/tenants/${tn.body.id}/keys`, op);
  return { srv, op, tenant: tn.body.id, key: k.body.key };
}

let seq = 0;
const ev = (tenant: string, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> => {
  const n = ++seq;
  return {
    id: `ops-${process.pid}-${n}`,
    tenant_id: tenant,
    message_id: `msg-${n}`,
    type,
    recipient: `r${n}@example.com`,
    timestamp: nowS(),
    ...extra,
  };
};

const receiver: Receiver = await startReceiver(t);

t.test("DNS check when a URL is set: names that do not resolve are refused, allowed names are resolved and pinned", async (t) => {
  const local = await startReceiver(t, "127.0.0.1");
  const { srv, op, tenant, key } = await serverWith({}, ["--webhook-allow-hosts", `${RECEIVER_HOST},localhost`]);
  const bad = await api(srv, "POST", "/v1/webhooks", key, { url: "https://nothing.invalid/hook", event_types: ["delivered"] });
  t.equal(bad.status, 400, "a name that does not resolve: 400");
  t.match(bad.body, { error: /nothing\.invalid does not resolve/ });
  const trailing = await api(srv, "POST", "/v1/webhooks", key, { url: "https://nothing.invalid./hook", event_types: ["delivered"] });
  t.equal(trailing.status, 400, "also with a trailing dot");

  const ok = await api(srv, "POST", "/v1/webhooks", key, { url: `https://localhost:${local.port}/dns`, event_types: ["delivered"] });
  t.equal(ok.status, 201, "an allowed name is accepted (and resolves to 127.0.0.1)");
  const test = await api(srv, "POST", `/v1/webhooks/${ok.body.id}/test`, key, { event_type: "delivered" });
  t.match(test.body, { success: true, status_code: 200 }, "dispatched to it on 127.0.0.1, the address the name resolved to");
  t.ok(verifyMailSignature(ok.body.secret, local.hits("/dns")[0]));

  const patch = await api(srv, "PATCH", `/v1/webhooks/${ok.body.id}`, key, { url: "https://nothing.invalid/other" });
  t.equal(patch.status, 400, "an update to a name that does not resolve: 400");
  t.match(patch.body, { error: /does not resolve/ });
  t.equal(
    (await api(srv, "GET", `/v1/webhooks/${ok.body.id}`, key)).body.url,
    `https://localhost:${local.port}/dns`,
    "the refused update changed nothing",
  );
  t.equal(
    (await api(srv, "PATCH", "/v1/webhooks/wh_missing", key, { url: "https://nothing.invalid/" })).status,
    404,
    "an unknown webhook is 404 before any lookup",
  );
  const route = await api(srv, "POST", `/v1/tenants/${tenant}/inbound-routes`, op, { match: "*", url: "https://nothing.invalid/in" });
  t.equal(route.status, 400, "inbound routes get the same check");
  t.match(route.body, { error: /does not resolve/ });
  t.equal((await api(srv, "GET", "/health", null)).status, 200, "the server is unharmed");
});

t.test("DNS check in-process: every answer must be public; a failing resolver is a 503", async (t) => {
  const { UrlGuard } = await import(join(ROOT, "dist/src/webhooks/url-guard.js"));
  const guard = new UrlGuard(["allowed.example.com"]);
  let asked = 0;
  const answers =
    (list: string[]) =>
    (_h: string, _o: object, cb: (e: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void): void => {
      asked++;
      cb(
        null,
        list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
      );
    };
  const failing =
    (code: string) =>
    (_h: string, _o: object, cb: (e: NodeJS.ErrnoException | null, a: unknown[]) => void): void =>
      cb(Object.assign(new Error(code), { code }), []);
  t.match(
    await guard.resolvedProblem("https://intranet.example.com/x", answers(["10.1.2.3"])),
    { status: 400, message: /resolves to a non-public address \(10\.1\.2\.3\)/ },
    "a name resolving to 10.x",
  );
  t.match(
    await guard.resolvedProblem("https://mixed.example.com/x", answers(["93.184.216.34", "::1"])),
    { status: 400, message: /::1/ },
    "any private answer refuses",
  );
  t.match(await guard.resolvedProblem("https://meta.example.com/x", answers(["169.254.169.254"])), { status: 400 }, "metadata address");
  t.equal(
    await guard.resolvedProblem("https://public.example.com/x", answers(["93.184.216.34", "2606:2800:220:1::1"])),
    null,
    "all public: fine",
  );
  const before = asked;
  t.equal(await guard.resolvedProblem("https://allowed.example.com/x", answers(["10.0.0.1"])), null, "allowed hosts are not checked");
  t.equal(await guard.resolvedProblem("https://93.184.216.34/x", answers(["10.0.0.1"])), null, "IP literals are not resolved");
  t.equal(asked, before, "no lookup for either");
  t.match(await guard.resolvedProblem("https://gone.example.com/x", failing("ENOTFOUND")), {
    status: 400,
    message: /does not resolve \(ENOTFOUND\)/,
  });
  t.match(await guard.resolvedProblem("https://flaky.example.com/x", failing("EAI_AGAIN")), { status: 503, message: /try again/ });
  const hang = (): void => undefined;
  t.match(
    await guard.resolvedProblem("https://slow.example.com/x", hang, 50),
    { status: 503, message: /within 0.05 s/ },
    "a resolver that does not answer",
  );
  t.match(await guard.resolvedProblem("https://empty.example.com/x", answers([])), { status: 400, message: /no address/ });
});

t.test("a dispatcher thread that dies is replaced; every delivery still arrives, signed, within the cap", async (t) => {
  const { srv, tenant, key, op } = await serverWith({ LEIDEX_TEST_DISPATCHER_CRASH_AFTER: "30", LEIDEX_WEBHOOK_TIME_SCALE: "1000" }, [
    "--webhook-allow-hosts",
    RECEIVER_HOST,
  ]);
  t.equal(metric((await srv.get("/metrics")).text, "leidex_webhook_dispatcher_restarts_total"), 0, "no restart yet");
  const hooks: { id: string; secret: string; path: string; cap: number }[] = [];
  for (const [path, cap, delayMs] of [
    ["/crash-a", 2, 15],
    ["/crash-b", 3, 5],
    ["/crash-c", 1, 5],
  ] as const) {
    receiver.behave(path, () => ({ status: 200, delayMs }));
    const r = await api(srv, "POST", "/v1/webhooks", key, { url: receiver.base + path, event_types: ["processed"], max_concurrency: cap });
    t.equal(r.status, 201);
    hooks.push({ id: r.body.id, secret: r.body.secret, path, cap });
  }
  const events = Array.from({ length: 50 }, () => ev(tenant, "processed"));
  t.equal((await api(srv, "POST", "/v1/events", op, { events: events.slice(0, 25) })).status, 202);
  t.equal((await api(srv, "POST", "/v1/events", op, { events: events.slice(25) })).status, 202);
  const ids = events.map((e) => e.id);
  await receiver.waitFor(
    () =>
      hooks.every((h) => {
        const got = new Set(receiver.hits(h.path).map((x) => json(x).id));
        return ids.every((id) => got.has(id));
      }),
    60_000,
    "every delivery at every endpoint",
  );
  const restarts = metric((await srv.get("/metrics")).text, "leidex_webhook_dispatcher_restarts_total");
  t.ok(restarts >= 2, `threads died and were replaced (${restarts} restarts for 150 deliveries, a death every 30 results)`);
  t.match(srv.stdout(), /dispatcher \d exited \(code 1\); \d+ deliveries go out again from the outbox/, "each death is logged");
  t.match(srv.stdout(), /dispatcher \d failed: test crash/);
  for (const h of hooks) {
    const hits = receiver.hits(h.path);
    t.ok(
      hits.every((x) => verifyMailSignature(h.secret, x)),
      `${h.path}: every request signed`,
    );
    t.ok(
      receiver.maxInFlight(h.path) <= h.cap,
      `${h.path}: at most ${h.cap} in flight at the receiver (saw ${receiver.maxInFlight(h.path)}), across restarts`,
    );
    const byId = new Map<string, Set<string>>();
    for (const x of hits) (byId.get(json(x).id) ?? byId.set(json(x).id, new Set()).get(json(x).id)!).add(x.raw.toString());
    t.ok(
      [...byId.values()].every((bodies) => bodies.size === 1),
      `${h.path}: a delivery sent again has the same body`,
    );
  }
  // the log and the outbox agree once things settle: every delivery ends delivered
  const until = Date.now() + 10_000;
  let pending = -1;
  while (Date.now() < until) {
    pending = Number((await stateRows(srv.dataDir, "SELECT COUNT(*) AS n FROM deliveries WHERE status <> 'delivered'"))[0].n);
    if (pending === 0) break;
    await sleep(100);
  }
  t.equal(pending, 0, "every outbox row ends delivered");
  t.equal((await srv.get("/health")).status, 200, "the server never went down");
});

t.test("pruning: finished outbox rows go after their retention, pending rows stay, the delivery log keeps its own", async (t) => {
  const { srv, tenant, key, op } = await serverWith({ LEIDEX_WEBHOOK_TIME_SCALE: "1000000" }, ["--webhook-allow-hosts", RECEIVER_HOST]);
  const mk = async (path: string, type: string): Promise<string> => {
    const r = await api(srv, "POST", "/v1/webhooks", key, { url: receiver.base + path, event_types: [type] });
    return r.body.id;
  };
  receiver.behave("/prune-ok", () => ({ status: 200 }));
  receiver.behave("/prune-later", () => ({ status: 429, headers: { "retry-after": "3600" } }));
  receiver.behave("/prune-fail", () => ({ status: 500 }));
  const ok = await mk("/prune-ok", "delivered");
  const later = await mk("/prune-later", "deferred");
  const fail = await mk("/prune-fail", "bounced");
  const events = [
    ...Array.from({ length: 20 }, () => ev(tenant, "delivered")),
    ...Array.from({ length: 5 }, () => ev(tenant, "deferred")),
    ...Array.from({ length: 5 }, () => ev(tenant, "bounced", { bounce_type: "soft" })),
  ];
  t.equal((await api(srv, "POST", "/v1/events", op, { events })).status, 202);
  const rows = async (): Promise<Record<string, Record<string, number>>> => {
    const out: Record<string, Record<string, number>> = {};
    for (const r of await stateRows(srv.dataDir, "SELECT webhook_id, status, COUNT(*) AS n FROM deliveries GROUP BY webhook_id, status"))
      (out[r.webhook_id as string] ??= {})[r.status as string] = Number(r.n);
    return out;
  };
  const settles = async (check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> => {
    const end = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  };
  await receiver.waitFor(
    () => receiver.hits("/prune-ok").length >= 20 && receiver.hits("/prune-later").length >= 5,
    10_000,
    "first attempts",
  );
  // a day of retention is 86 ms here: the delivered rows go, while the log (30 days: 2.6 s) still shows them
  await settles(async () => (await rows())[ok] === undefined, 5000, "delivered rows pruned");
  const log = await api(srv, "GET", `/v1/webhooks/${ok}/deliveries?limit=100`, key);
  t.equal(log.body.deliveries.filter((d: any) => d.outcome === "success").length, 20, "the delivery log still lists them");
  const redeliver = await api(srv, "POST", `/v1/webhooks/${ok}/deliveries/${log.body.deliveries[0].delivery_id}/redeliver`, key);
  t.equal(redeliver.status, 404, "a pruned delivery cannot be redelivered");
  t.same((await rows())[later], { pending: 5 }, "rows waiting for a retry stay");
  await settles(async () => ((await rows())[fail]?.failed ?? 0) === 5, 10_000, "failed rows (retries exhausted or endpoint disabled)");
  t.pass("failed rows are kept for now (30 days: 2.6 s here)");
  // 30 days later: failed rows and the log go too; the pending rows stay
  await settles(async () => (await rows())[fail] === undefined, 10_000, "failed rows pruned");
  const until = Date.now() + 10_000;
  let left = -1;
  while (Date.now() < until && left !== 0) {
    left = (await api(srv, "GET", `/v1/webhooks/${ok}/deliveries?limit=100`, key)).body.deliveries.length;
    if (left !== 0) await sleep(100);
  }
  t.equal(left, 0, "the delivery log goes after its own retention");
  t.same((await rows())[later], { pending: 5 }, "pending rows are never pruned");
  const m = (await srv.get("/metrics")).text;
  t.ok(metric(m, "leidex_webhook_outbox_pruned_total") >= 25, `pruned rows counted (${metric(m, "leidex_webhook_outbox_pruned_total")})`);
  t.ok(metric(m, "leidex_webhook_log_pruned_total") >= 20, `pruned log rows counted (${metric(m, "leidex_webhook_log_pruned_total")})`);
  // intake keeps working while pruning runs
  t.equal((await api(srv, "POST", "/v1/events", op, { events: [ev(tenant, "delivered")] })).status, 202);
});
