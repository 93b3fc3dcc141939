// Mail event webhooks (issue 5, area C): subscriptions (/v1/webhooks): create, validate (SSRF
// cases, a name that does not resolve), list, get, update, rotate the secret, delete, tenant
// isolation; and the SSRF guard's DNS path at connect time, in-process with a fake resolver.

import t from "tap";
import { join } from "node:path";
import { RECEIVER_HOST, startReceiver } from "./helpers/webhook-receiver.js";
import { webhookBench } from "./helpers/webhook-api.js";
import { ROOT } from "./helpers/server.js";

const receiver = await startReceiver(t);
const { A, B, api } = await webhookBench(t, { receiver });

t.test("subscriptions: create, validate, list, get, update, rotate, delete; tenant isolation", async (t) => {
  const r = await api("POST", "/v1/webhooks", A.key, { url: `${receiver.base}/crud`, event_types: ["delivered", "bounced"] });
  t.equal(r.status, 201);
  t.match(r.body, {
    id: String,
    url: `${receiver.base}/crud`,
    event_types: ["delivered", "bounced"],
    secret: /^whsec_/,
    status: "enabled",
    created_at: String,
    max_concurrency: 4,
  });
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
  for (const host of [
    "127.0.0.1",
    "[::ffff:127.0.0.1]",
    "localhost",
    "localhost.",
    "LOCALHOST",
    "169.254.169.254",
    "10.1.2.3",
    "[::1]",
    "0.0.0.0",
    "printer.local.",
  ]) {
    await bad({ url: `https://${host}/hook`, event_types: ["delivered"] }, `SSRF: ${host}`);
  }
  await bad(
    { url: "https://nothing.invalid/hook", event_types: ["delivered"] },
    "a name that does not resolve (checked by DNS at creation)",
  );
  t.equal((await api("POST", "/v1/webhooks", null, { url: `${receiver.base}/x`, event_types: ["delivered"] })).status, 401);

  const got = await api("GET", `/v1/webhooks/${id}`, A.key);
  t.equal(got.status, 200);
  t.notOk("secret" in got.body, "secret only on creation");
  const list = await api("GET", "/v1/webhooks", A.key);
  t.ok(list.body.webhooks.some((w: any) => w.id === id));
  t.notOk(list.text.includes(r.body.secret));
  // another tenant sees nothing of it
  for (const [m, p, b] of [
    ["GET", `/v1/webhooks/${id}`],
    ["PATCH", `/v1/webhooks/${id}`, { enabled: false }],
    ["DELETE", `/v1/webhooks/${id}`],
    ["POST", `/v1/webhooks/${id}/rotate-secret`],
    ["GET", `/v1/webhooks/${id}/deliveries`],
    ["POST", `/v1/webhooks/${id}/test`, {}],
  ] as const) {
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
  for (const a of [
    "127.0.0.1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "169.254.169.254",
    "10.0.0.5",
    "192.168.1.1",
    "172.16.0.1",
    "fd00::1",
    "fe80::1",
    "::1",
    "100.64.0.1",
  ]) {
    t.notOk(isGlobalAddress(a), `${a} is not global`);
  }
  for (const a of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"]) t.ok(isGlobalAddress(a), `${a} is global`);
  const guard = new UrlGuard(["allowed.test"]);
  const fake = (answers: string[]) => (_h: string, _o: object, cb: (e: Error | null, a: { address: string; family: number }[]) => void) =>
    cb(
      null,
      answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  const look = (host: string, answers: string[]): Promise<string> =>
    new Promise((res) => {
      guard.lookupFor(fake(answers))(host, {}, (err: Error | null, addr: string) => res(err ? `error: ${err.message}` : addr));
    });
  t.match(await look("intranet.example.com", ["10.1.2.3"]), /^error: blocked/, "a name resolving to 10.x is refused");
  t.match(await look("mixed.example.com", ["93.184.216.34", "127.0.0.1"]), /^error: blocked/, "any private answer refuses");
  t.equal(await look("public.example.com", ["93.184.216.34"]), "93.184.216.34");
  t.equal(await look("allowed.test", ["10.1.2.3"]), "10.1.2.3", "allowed hosts may be private");
  t.equal(guard.problem("https://printer.local/x"), "url points at a local host name (printer.local)");
});
