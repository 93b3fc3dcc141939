// Wall-clock steps (issue 42, items 8 to 11). The real server runs under libfaketime (Debian
// package faketime): its wall clock is offset through a file it reads at every clock call
// (FAKETIME_NO_CACHE), so a test steps it while it runs; the monotonic clock is left alone, so a
// step is a real wall-clock step. Checks what happens, never how fast:
// - item 8: a forward step fires no retry early; a retry scheduled while the clock was ahead, or
//   pending across a backward step, still comes after its backoff (Retry-After: 2 s), not days later;
// - item 10: a delivery made while the clock was behind is not pruned once the clock is put right;
// - item 9: a licence that looked expired because the server started with the clock ahead
//   applies again once the clock is put right, without a restart; its expiry is still enforced;
// - item 11: a bounce for a look-alike address (KELVIN SIGN) suppresses only that address.

import t from "tap";
import { existsSync, writeFileSync } from "node:fs";
import { generateKeyPairSync, sign } from "node:crypto";
import { join } from "node:path";
import { startReceiver, type Behaviour } from "./helpers/webhook-receiver.js";
import { api, generatedOperatorKey, webhookServerArgs, type Res } from "./helpers/webhook-api.js";
import { startServer, tempDir, type RunningServer } from "./helpers/server.js";

const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const DAY_S = 86_400;

if (!existsSync(LIBFAKETIME)) {
  t.fail(`libfaketime is not installed (${LIBFAKETIME}): apt-get install -y faketime`);
  process.exit(1);
}

/** The environment that runs the server under libfaketime, its offset read from `file` ("+0", "+6d", "-2d"). */
function fakeTimeEnv(file: string, offset = "+0"): NodeJS.ProcessEnv {
  writeFileSync(file, `${offset}\n`);
  return {
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: file,
    FAKETIME_NO_CACHE: "1",
    FAKETIME_DONT_FAKE_MONOTONIC: "1",
  };
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const dir = tempDir(t, "leidex-clock-");
const clockFile = join(dir, "faketime.rc");
const step = (offset: string): void => writeFileSync(clockFile, `${offset}\n`);
// delays divided by 1000: a day of retention is 86 s, a pruner pass every 60 ms; Retry-After is never scaled
process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
const srv = await startServer(t, { shards: 1, args: webhookServerArgs(1), env: fakeTimeEnv(clockFile) });
const receiver = await startReceiver(t);
const OP = generatedOperatorKey(srv);
const tenant = await api(srv, "POST", "/v1/tenants", OP, { name: "clocks" });
const KEY = (await api(srv, "POST", `/v1/tenants/${tenant.body.id}/keys`, OP)).body.key as string;
t.teardown(() => step("+0"));

let seq = 0;
const events = (n: number): Record<string, unknown>[] =>
  Array.from({ length: n }, () => {
    const i = ++seq;
    return {
      id: `cev-${process.pid}-${i}`,
      tenant_id: tenant.body.id,
      message_id: `cm-${i}`,
      type: "queued",
      recipient: `c${i}@example.com`,
      timestamp: Math.floor(Date.now() / 1000),
    };
  });
async function hook(path: string, behave: (n: number) => Behaviour): Promise<string> {
  receiver.behave(path, behave);
  const r = await api(srv, "POST", "/v1/webhooks", KEY, { url: receiver.base + path, event_types: ["queued"] });
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return r.body.id as string;
}
/** Every request answers 503 with Retry-After: `seconds`. */
const retryAfter = (seconds: number) => (): Behaviour => ({ status: 503, headers: { "retry-after": String(seconds) } });
/** Waits until the delivery log shows `n` attempts of the webhook: their results are recorded (a receiver's hit comes first). */
async function logged(webhookId: string, n: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await api(srv, "GET", `/v1/webhooks/${webhookId}/deliveries`, KEY)).body.deliveries.length >= n) return;
    await sleep(50);
  }
  throw new Error(`the log never showed ${n} attempts of ${webhookId}`);
}
const post = (n: number): Promise<Res> => api(srv, "POST", "/v1/events", OP, { events: events(n) });

t.test("item 8: a forward step of 6 days fires no retry early", async (t) => {
  step("+0");
  const id = await hook("/fwd", retryAfter(600)); // every retry is due in 10 minutes
  t.equal((await post(3)).status, 202);
  await logged(id, 3);
  step("+6d");
  // the retries are due in 10 real minutes: 3 s after the step, none may have gone
  await sleep(3000);
  t.equal(receiver.hits("/fwd").length, 3, "no retry went when the clock jumped 6 days ahead");
  step("+0");
});

t.test("item 8: a retry scheduled while the clock was ahead comes after its backoff once the clock is put right", async (t) => {
  step("+6d");
  const id = await hook("/ahead", (n) => (n <= 2 ? { status: 503, headers: { "retry-after": "2" } } : { status: 200 }));
  t.equal((await post(2)).status, 202);
  await logged(id, 2); // the 2 first attempts, made 6 days ahead
  step("+0");
  // due 2 s after the first attempts: the guard below only keeps a failure from hanging
  await receiver.waitFor(() => receiver.hits("/ahead").length >= 4, 30_000, "the 2 retries after the clock was put right");
  t.equal(receiver.hits("/ahead").length, 4, "both retries came, after their backoff, not 6 days later");
});

t.test("item 8: a backward step of 2 days does not hold a pending retry back", async (t) => {
  step("+0");
  const id = await hook("/back", (n) => (n <= 2 ? { status: 503, headers: { "retry-after": "2" } } : { status: 200 }));
  t.equal((await post(2)).status, 202);
  await logged(id, 2);
  step("-2d");
  await receiver.waitFor(() => receiver.hits("/back").length >= 4, 30_000, "the 2 retries while the clock is 2 days behind");
  t.equal(receiver.hits("/back").length, 4, "both retries came after their backoff while the clock was behind");
  step("+0");
});

t.test("item 10: a delivery made while the clock was behind is kept for its retention once the clock is put right", async (t) => {
  step("-2d");
  const id = await hook("/behind", () => ({ status: 200 }));
  t.equal((await post(1)).status, 202);
  await logged(id, 1);
  const delivery = (await api(srv, "GET", `/v1/webhooks/${id}/deliveries`, KEY)).body.deliveries[0].delivery_id as string;
  step("+0");
  // a pruner pass runs every 60 ms; a delivered row is kept for 86 s (a day / 1000)
  await sleep(2000);
  const again = await api(srv, "POST", `/v1/webhooks/${id}/deliveries/${delivery}/redeliver`, KEY);
  t.equal(again.status, 202, "the delivery can still be redelivered: it was not pruned");
  await receiver.waitFor(() => receiver.hits("/behind").length === 2, 20_000, "the redelivery");
});

t.test("item 11: a hard bounce for a look-alike address suppresses that address only", async (t) => {
  const kelvin = "\u212Aate@x.example";
  const bounce = (recipient: string, msg: string): Record<string, unknown>[] => [
    { id: `k-${msg}-q`, tenant_id: tenant.body.id, message_id: msg, type: "queued", recipient, timestamp: 1 },
    { id: `k-${msg}-b`, tenant_id: tenant.body.id, message_id: msg, type: "bounced", bounce_type: "hard", recipient, timestamp: 2 },
  ];
  t.equal((await api(srv, "POST", "/v1/events", OP, { events: bounce(kelvin, "km-1") })).status, 202);
  const path = (a: string): string => `/v1/suppressions/${encodeURIComponent(a)}`;
  const got = await api(srv, "GET", path(kelvin), KEY);
  t.equal(got.status, 200, "the bounced look-alike is suppressed");
  t.equal(got.body.address, kelvin, "kept as given: KELVIN SIGN, not k");
  t.equal((await api(srv, "GET", path("kate@x.example"), KEY)).status, 404, "kate@x.example is not suppressed");
  // a queued event to the real address is not dropped as suppressed
  const q = [{ id: "k-real-q", tenant_id: tenant.body.id, message_id: "km-2", type: "queued", recipient: "kate@x.example", timestamp: 3 }];
  t.equal((await api(srv, "POST", "/v1/events", OP, { events: q })).status, 202);
  t.equal((await api(srv, "GET", path("kate@x.example"), KEY)).status, 404);
  // ASCII letters still compare case-insensitively, and the domain by its IDNA form
  t.equal((await api(srv, "POST", "/v1/suppressions", KEY, { address: "Bob@X.EXAMPLE" })).body.address, "bob@x.example");
  t.equal((await api(srv, "GET", path("BOB@x.Example"), KEY)).status, 200);
  t.equal(
    (await api(srv, "POST", "/v1/suppressions", KEY, { address: "ann@B\u00DCCHER.example" })).body.address,
    "ann@b\u00FCcher.example",
  );
  t.equal((await api(srv, "GET", path("ann@xn--bcher-kva.example"), KEY)).status, 200, "the same domain in its ASCII form");
  // one rule for inbound routes too
  const routes = `/v1/tenants/${tenant.body.id}/inbound-routes`;
  const route = await api(srv, "POST", routes, OP, { match: kelvin, url: `${receiver.base}/in` });
  t.equal(route.status, 201);
  t.equal(route.body.match, kelvin, "a route's address keeps KELVIN SIGN");
  t.equal((await api(srv, "POST", routes, OP, { match: "@IN.Example", url: `${receiver.base}/in` })).body.match, "@in.example");
  const deleted = await api(srv, "DELETE", path("\u212AATE@X.example"), KEY);
  t.same([deleted.status, deleted.body?.address], [200, kelvin], "deleted by its own spelling, ASCII case aside");
});

t.test("item 9: a licence dropped at a start with the clock ahead applies again once the clock is put right", async (t) => {
  const issuer = generateKeyPairSync("ed25519");
  const keyFile = join(dir, "license.pub.pem");
  writeFileSync(keyFile, issuer.publicKey.export({ type: "spki", format: "pem" }));
  const now = Math.floor(Date.now() / 1000);
  const signed = (expiresAt: number): { license: string; signature: string } => {
    const bytes = Buffer.from(
      JSON.stringify({
        licensee: "Clock Ltd",
        tier: "partner",
        issued_at: now - 60,
        expires_at: expiresAt,
        entitlements: { clients: ["127.0.0.1"] },
      }),
    );
    return { license: bytes.toString("base64url"), signature: sign(null, bytes, issuer.privateKey).toString("base64url") };
  };
  const dataDir = join(dir, "licence-data");
  const licenceClock = join(dir, "licence-faketime.rc");
  const args = ["--license-public-key", keyFile];
  const state = async (s: RunningServer): Promise<string> => (await s.json("/license")).activation.state;
  const first = await startServer(t, { dataDir, args, env: fakeTimeEnv(licenceClock) });
  const activated = await api(first, "POST", "/license/activate", null, signed(now + DAY_S));
  t.equal(activated.status, 200);
  // a forward step while running does not expire it
  writeFileSync(licenceClock, "+2d\n");
  t.equal(await state(first), "active", "a forward step of two days does not expire it");
  writeFileSync(licenceClock, "+0\n");
  await first.stop();

  // started two days ahead: the licence (a day left) looks expired
  const ahead = await startServer(t, { dataDir, args, env: fakeTimeEnv(licenceClock, "+2d") });
  t.not(await state(ahead), "active", "expired while the clock is two days ahead");
  writeFileSync(licenceClock, "+0\n");
  t.equal(await state(ahead), "active", "active again once the clock is put right, without a restart");

  // expiry is still enforced: a licence with 2 s left expires
  t.equal((await api(ahead, "POST", "/license/activate", null, signed(Math.floor(Date.now() / 1000) + 2))).body.state, "active");
  let s = "active";
  for (let i = 0; i < 200 && s === "active"; i++) {
    await sleep(100);
    s = await state(ahead);
  }
  t.equal(s, "expired", "it expires");
  t.equal((await api(ahead, "POST", "/license/activate", null, signed(now - 1))).status, 400, "an expired licence is refused");
});
