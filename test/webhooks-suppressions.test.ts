// Mail event webhooks (issue 5, area C): the suppressions API (/v1/suppressions): add with a
// reason, refuse bad bodies, page through, per-tenant isolation, delete.

import t from "tap";
import { webhookBench } from "./helpers/webhook-api.js";

const { A, B, api } = await webhookBench(t);

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
