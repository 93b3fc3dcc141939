// Issue 25: the mail event webhook tests that run through the HTTP API (tenants, subscriptions,
// events, suppressions, inbound mail, dispatch with retries, the cap, redelivery and kill -9, a
// dispatcher thread that dies, pruning) again, every server they start on the PostgreSQL store.

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
];

t.test("the webhook tests pass on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  await rerunOnPostgres(t, FILES);
});
