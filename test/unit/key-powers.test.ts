// What a key may do (src/keys/model.ts): Typesense's action and collection rules, expiry to the
// second, and a key creating, seeing or deleting only keys within its own powers.

import t from "tap";
import { actionAllowed, collectionAllowed, expired, withinPowers, type ApiKey } from "../../src/keys/model.js";

const key = (actions: string[], collections: string[], expiresAt = 2_000_000_000): ApiKey => ({
  id: 1,
  value: "k",
  description: "",
  actions,
  collections,
  expiresAt,
  autodelete: false,
});

t.test("actions: *, exact, or a resource's x:*", async (t) => {
  t.ok(actionAllowed(["*"], "documents:search"));
  t.ok(actionAllowed(["documents:search"], "documents:search"));
  t.ok(actionAllowed(["documents:*"], "documents:get"));
  t.notOk(actionAllowed(["documents:*"], "collections:get"));
  t.notOk(actionAllowed(["documents:search"], "documents:get"));
  t.notOk(actionAllowed(["doc*"], "documents:get"), "a wildcard only after a colon");
});

t.test("collections: empty or * is all, else names or full-match patterns, the alias or its target", async (t) => {
  t.ok(collectionAllowed([], ["lei"]));
  t.ok(collectionAllowed(["*"], ["lei"]));
  t.ok(collectionAllowed(["lei"], ["lei"]));
  t.ok(collectionAllowed(["lei_.*"], ["lei", "lei_20261126"]), "the target matches");
  t.notOk(collectionAllowed(["lei_.*"], ["lei"]), "full match: lei is not lei_…");
  t.notOk(collectionAllowed(["other"], ["lei", "lei_20261126"]));
});

t.test("expiry: a key works through the second of expires_at", async (t) => {
  t.notOk(expired({ expiresAt: 100 }, 100));
  t.ok(expired({ expiresAt: 100 }, 101));
});

t.test("a key's powers bound the keys it handles", async (t) => {
  const parent = key(["documents:*", "keys:*"], ["lei", "lei_.*"], 1_900_000_000);
  t.equal(withinPowers(parent, key(["documents:search"], ["lei"], 1_800_000_000)), null);
  t.equal(withinPowers(parent, key(["documents:*"], ["lei_2026"], 1_900_000_000)), null, "a plain name the parent's pattern matches");
  t.match(withinPowers(parent, key(["*"], ["lei"], 1)) ?? "", /action '\*'/);
  t.match(withinPowers(parent, key(["collections:get"], ["lei"], 1)) ?? "", /action 'collections:get'/);
  t.match(withinPowers(parent, key(["documents:search"], [], 1)) ?? "", /all collections/);
  t.match(
    withinPowers(parent, key(["documents:search"], ["lei.*"], 1)) ?? "",
    /collection 'lei\.\*'/,
    "a pattern not verbatim the parent's",
  );
  t.match(withinPowers(parent, key(["documents:search"], ["lei"], 1_900_000_001)) ?? "", /expires_at/);
  t.equal(withinPowers(key(["*"], []), key(["*"], ["*"])), null, "the bootstrap-like key covers all");
});
