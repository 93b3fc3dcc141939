// Issue 42, items 8 to 11 on the PostgreSQL store: test/hardening-clock-steps.test.ts again, every
// server it starts on a private cluster (retries, pruning and suppressions live in PostgreSQL
// there; a file of its own, so that the webhook files' rerun keeps within its time).

import t from "tap";
import { rerunOnPostgres } from "./helpers/on-postgres.js";
import { POSTGRES_MISSING } from "./helpers/postgres.js";

t.test("the clock-step tests pass on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  await rerunOnPostgres(t, ["test/hardening-clock-steps.test.ts"]);
});
