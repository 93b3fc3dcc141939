// Gathering slices' answers (src/engine/merge.ts): by score, then LEI; found summed; facet counts
// summed per value, by count then value; synonym variants merged with each LEI once at its best.

import t from "tap";
import { mergeFacetValues, mergeSearchParts, mergeVariants } from "../../src/engine/merge.js";
import type { HitRef, SearchAnswer } from "../../src/engine/protocol.js";

const plan = { tokens: 1, required: 1, exactMask: 1, typoable: 0, wideTypos: 0, bestWhole: 1, matched: true, named: 0 };
const hit = (score: number, lei: string, slice = 0): HitRef => [score, lei, slice, 0, 10];
const part = (found: number, hits: HitRef[], facets: SearchAnswer["facets"] = {}): SearchAnswer => ({ found, hits, facets, plan });

t.test("hits by score, ties by LEI, cut to the window; found summed", async (t) => {
  const merged = mergeSearchParts([part(5, [hit(9, "B"), hit(7, "D")]), part(4, [hit(9, "A", 1), hit(8, "C", 1)])], 3);
  t.same(
    merged.hits.map((h) => h[1]),
    ["A", "B", "C"],
    "9 A before 9 B, then 8 C; 7 D beyond the window",
  );
  t.equal(merged.found, 9);
});

t.test("facet counts summed per value, by count then value", async (t) => {
  t.same(
    mergeFacetValues([
      [
        ["DE", 3],
        ["FR", 1],
      ],
      [
        ["FR", 2],
        ["AT", 3],
      ],
    ]),
    [
      ["AT", 3],
      ["DE", 3],
      ["FR", 3],
    ],
  );
  t.same(
    mergeFacetValues([
      [["LU", 1]],
      [
        ["LU", 4],
        ["BE", 2],
      ],
    ]),
    [
      ["LU", 5],
      ["BE", 2],
    ],
  );
  const merged = mergeSearchParts(
    [
      part(1, [], { country: [["DE", 1]] }),
      part(2, [], {
        country: [
          ["DE", 2],
          ["FR", 1],
        ],
      }),
    ],
    10,
  );
  t.same(merged.facets, {
    country: [
      ["DE", 3],
      ["FR", 1],
    ],
  });
});

t.test("synonym variants: each LEI once at its best score; found at least the LEIs merged", async (t) => {
  const a = { found: 2, hits: [hit(5, "X"), hit(3, "Y")], facets: { country: [["DE", 2]] as [string, number][] } };
  const b = { found: 1, hits: [hit(6, "Y"), hit(1, "Z")], facets: {} };
  const merged = mergeVariants([a, b], 10);
  t.same(
    merged.hits.map((h) => [h[0], h[1]]),
    [
      [6, "Y"],
      [5, "X"],
      [1, "Z"],
    ],
  );
  t.equal(merged.found, 3, "three distinct LEIs, more than the widest variant's 2");
  t.same(merged.facets, a.facets, "the widest variant's facets");
  t.equal(mergeVariants([a, b], 2).hits.length, 2, "cut to the window");
});
