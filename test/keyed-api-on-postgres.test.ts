// Issue 25: the keyed engine API's tests that meet the store (keys and their scopes, settings,
// synonyms, presets, the licence, and searches made with stored keys) again, every server they
// start on the PostgreSQL store. The two tests that read or write state.db themselves skip. The
// documents' import and export and the keyed work limits keep nothing in the store: they run once.

import t from "tap";
import { rerunOnPostgres } from "./helpers/on-postgres.js";
import { POSTGRES_MISSING } from "./helpers/postgres.js";

const FILES = [
  "test/engine-search.test.ts",
  "test/engine-multi-search.test.ts",
  "test/engine-keys.test.ts",
  "test/engine-scoped-keys.test.ts",
  "test/hardening-keys.test.ts",
  "test/engine-synonyms-presets-stopwords.test.ts",
  "test/license.test.ts",
];

t.test("the key, settings and licence tests pass on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  const out = await rerunOnPostgres(t, FILES);
  t.match(out, /# SKIP it reads or writes state\.db itself/, "the state.db tests say why they skip");
});
