// Mail event webhooks (issue 5, area C): inbound routes (/v1/tenants/{id}/inbound-routes, managed
// with the operator key) and inbound mail (/v1/inbound): the most specific route matches, the
// dispatch is signed with the route's secret, a message id is taken once.

import t from "tap";
import { RECEIVER_HOST, startReceiver, verifyMailSignature } from "./helpers/webhook-receiver.js";
import { json, nowS, webhookBench } from "./helpers/webhook-api.js";

const receiver = await startReceiver(t);
const { OP, A, B, api } = await webhookBench(t, { receiver });

t.test("inbound routes: operator CRUD, most specific match, signed dispatch, idempotent", async (t) => {
  const base = `/v1/tenants/${A.id}/inbound-routes`;
  t.equal(
    (await api("POST", base, A.key, { match: "@in.example.com", url: `${receiver.base}/in-a` })).status,
    403,
    "a tenant key is not the operator key",
  );
  t.equal((await api("POST", base, null, { match: "@in.example.com", url: `${receiver.base}/in-a` })).status, 401);
  t.equal((await api("POST", "/v1/tenants/tn_nope/inbound-routes", OP, { match: "*", url: `${receiver.base}/in-a` })).status, 404);
  for (const [what, body] of [
    ["bad match", { match: "in.example.com", url: `${receiver.base}/x` }],
    ["private url", { match: "*", url: "https://10.0.0.1/x" }],
    ["http url", { match: "*", url: `http://${RECEIVER_HOST}/x` }],
    ["unknown field", { match: "*", url: `${receiver.base}/x`, x: 1 }],
  ] as const) {
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
  t.equal(
    (await api("GET", "/v1/webhooks", A.key)).body.webhooks.some((w: any) => w.id === ra.body.id),
    false,
    "routes are not webhooks",
  );

  const msg = {
    id: `in-${process.pid}-1`,
    recipient: "help@in.example.com",
    from: "someone@sender.example",
    subject: "Hi",
    text: "hello",
    timestamp: nowS(),
  };
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
  t.match(json(ha), {
    id: msg.id,
    type: "inbound",
    tenant_id: A.id,
    data: { route_id: ra.body.id, recipient: "help@in.example.com", from: msg.from, subject: "Hi", text: "hello" },
  });
  t.ok(verifyMailSignature(rb.body.secret, receiver.hits("/in-b")[0]));
  t.equal(json(receiver.hits("/in-b")[0]).tenant_id, B.id);

  const up = await api("PATCH", `${base}/${ra.body.id}`, OP, { match: "*" });
  t.match(up.body, { match: "*" });
  t.equal((await api("PATCH", `${base}/${ra.body.id}`, OP, { match: "" })).status, 400);
  t.equal(
    (await api("POST", "/v1/inbound", OP, { ...msg, id: `in-${process.pid}-4`, recipient: "x@elsewhere.example" })).body.route_id,
    ra.body.id,
    "catch-all",
  );
  t.equal((await api("DELETE", `${base}/${ra.body.id}`, OP)).status, 200);
  t.equal((await api("DELETE", `${base}/${ra.body.id}`, OP)).status, 404);
  await api("DELETE", `/v1/tenants/${B.id}/inbound-routes/${rb.body.id}`, OP);
  t.equal((await api("POST", "/v1/inbound", OP, { ...msg, id: `in-${process.pid}-5` })).status, 404, "no route left");
});
