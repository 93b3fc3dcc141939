// Issue 44: the smoke test of a Node line. One server on the bundled sample: a search, a lookup,
// a keyed search, a signed webhook delivery to a real HTTPS receiver and an MCP tool call. It runs
// in the suite on this machine's Node, and scripts/smoke-node.sh runs it on another Node line (a
// fresh install of this checkout built against that Node), so it checks only what every line must
// do, on the Node that runs it.

import t from "tap";
import { keyedRequest, searchPath } from "./helpers/keys.js";
import { json, webhookCalls, webhookServerArgs } from "./helpers/webhook-api.js";
import { startReceiver, verifyMailSignature } from "./helpers/webhook-receiver.js";
import { fetchGot, startServer } from "./helpers/server.js";

const API_KEY = "smoke-bootstrap-key-0123456789abcdef";
const OPERATOR_KEY = "smoke-operator-key-0123456789abcdef";

t.comment(`Node ${process.version}`);
const receiver = await startReceiver(t);
const srv = await startServer(t, {
  shards: 1,
  args: [...webhookServerArgs(1), "--api-key", API_KEY, "--operator-key", OPERATOR_KEY],
  env: { LEIDEX_OPERATOR_KEY: undefined },
});

t.test("search and lookup", async (t) => {
  const found = await srv.json<{ results: { lei: string }[] }>("/v1/entities?q=deutsche%20bank");
  t.ok(found.results.length > 0, "a search finds entities");
  const entity = await srv.json<{ lei: string }>(`/v1/entities/${found.results[0].lei}`);
  t.equal(entity.lei, found.results[0].lei, "a lookup answers the entity");
});

t.test("a keyed search", async (t) => {
  const r = await keyedRequest(srv.port, searchPath("lei", { q: "bank", query_by: "name" }), { key: API_KEY });
  t.equal(r.status, 200, "answered");
  t.ok((r.body as { found: number }).found > 0, "hits");
});

t.test("a webhook delivery", async (t) => {
  const { mkTenant, mkHook, ev, post } = webhookCalls(() => srv, OPERATOR_KEY, receiver);
  const tenant = await mkTenant("smoke");
  const hook = await mkHook(tenant.key, "/smoke", ["delivered"]);
  const event = ev(tenant.id, "m1", "delivered");
  t.equal((await post([event])).status, 202, "the event is accepted");
  await receiver.waitFor(() => receiver.hits("/smoke").length >= 1, 30_000, "the delivery");
  const hit = receiver.hits("/smoke")[0];
  t.ok(verifyMailSignature(hook.secret, hit), "signed with the webhook's secret");
  t.equal(json(hit).id, event.id, "the event's delivery");
});

t.test("an MCP tool call", async (t) => {
  const r = await fetchGot(`${srv.base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search_legal_entities", arguments: { query: "bank" } },
    }),
  });
  t.equal(r.status, 200, "answered");
  t.ok(r.body?.result?.structuredContent, "a structured answer");
  t.notOk(r.body?.result?.isError, "not an error");
});
