// Mail event webhooks (issue 5, area C): the operator key (generated on first start, 0600,
// printed once), tenants and tenant keys (operator only, hashed, revocable), and the guessing
// guard on keys.

import t from "tap";
import { readFileSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { sharedDatabaseOf } from "./helpers/server.js";
import { stateRows, webhookBench } from "./helpers/webhook-api.js";

const { dataDir, srv, OP, A, api } = await webhookBench(t);

t.test("operator key: generated on first start, 0600 (or in the database with --database), printed once in full", async (t) => {
  t.match(OP, /^lxo_[0-9A-Za-z]{32}$/);
  if (sharedDatabaseOf(dataDir))
    t.same(
      await stateRows(dataDir, "SELECT value FROM shared_secrets WHERE name = 'operator_key'"),
      [{ value: OP }],
      "kept in the database",
    );
  else t.equal(statSync(join(dataDir, "operator-key")).mode & 0o777, 0o600);
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
  const state = sharedDatabaseOf(dataDir)
    ? Buffer.from(JSON.stringify(await stateRows(dataDir, "SELECT * FROM tenant_keys")))
    : readFileSync(join(dataDir, "state.db"));
  t.notOk(state.includes(Buffer.from(k.body.key)), "the key is not stored in clear");
  const listed = await api("GET", `/v1/tenants/${created.body.id}/keys`, OP);
  t.notOk(listed.text.includes(k.body.key), "listing never shows the key");
  t.equal((await api("DELETE", `/v1/tenants/${created.body.id}/keys/${k.body.id}`, OP)).status, 200);
  t.equal((await api("GET", "/v1/webhooks", k.body.key)).status, 401, "revoked key refused");
  t.equal((await api("DELETE", `/v1/tenants/${created.body.id}/keys/${k.body.id}`, OP)).status, 404, "twice: 404");
});

t.test("guessing guard: 30 unknown keys a minute per address, then 429; valid keys still work", async (t) => {
  const from = (key: string): Promise<{ status: number; retryAfter: string | undefined }> =>
    new Promise((res, rej) => {
      const req = httpRequest(
        { host: "127.0.0.1", port: srv.port, path: "/v1/webhooks", localAddress: "127.0.0.5", headers: { authorization: `Bearer ${key}` } },
        (r) => {
          r.resume();
          r.on("end", () => res({ status: r.statusCode ?? 0, retryAfter: r.headers["retry-after"] as string | undefined }));
        },
      );
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
