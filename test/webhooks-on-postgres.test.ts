// Issue 25: the mail event webhook tests that run through the HTTP API (tenants, subscriptions,
// events, suppressions, inbound mail, dispatch with retries, the cap, redelivery and kill -9, a
// dispatcher thread that dies, pruning, SSRF spellings, snippets, a slow endpoint on a shared
// host) again, every server they start on the PostgreSQL store. The tests of state.db and its
// intake writer thread skip.

import t from "tap";
import { rerunOnPostgres } from "./helpers/on-postgres.js";
import { POSTGRES_MISSING } from "./helpers/postgres.js";

const FILES = [
  "test/webhooks-tenants.test.ts",
  "test/webhooks-subscriptions.test.ts",
  "test/webhooks-events.test.ts",
  "test/webhooks-suppressions.test.ts",
  "test/webhooks-inbound.test.ts",
  "test/webhooks-dispatch.test.ts",
  "test/webhooks-ops.test.ts",
  "test/hardening-webhooks.test.ts",
];

t.test("the webhook tests pass on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  const out = await rerunOnPostgres(t, FILES);
  t.match(out, /# SKIP it reads or writes state\.db itself/, "the state.db tests say why they skip");
});
