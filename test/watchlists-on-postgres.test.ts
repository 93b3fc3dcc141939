// test/watchlists.test.ts again with every server it starts on the PostgreSQL store (migration
// 10): the lists, the caps and tenant isolation, and the events end to end with kill -9, the
// consumer's and the sweep's leases and the outbox all in the shared database.

import t from "tap";
import { rerunOnPostgres } from "./helpers/on-postgres.js";
import { POSTGRES_MISSING } from "./helpers/postgres.js";

t.test("the watchlist tests pass on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  await rerunOnPostgres(t, ["test/watchlists.test.ts"]);
});
