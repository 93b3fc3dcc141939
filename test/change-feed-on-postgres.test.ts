// Issue 45, item 3: the change feed's test again with every server on the PostgreSQL store
// (--database): the same rows, cursors and filters, and a publication loaded again adds nothing.

import t from "tap";
import { rerunOnPostgres } from "./helpers/on-postgres.js";
import { POSTGRES_MISSING } from "./helpers/postgres.js";

t.test("the change feed's test passes on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  await rerunOnPostgres(t, ["test/change-feed.test.ts"]);
});
