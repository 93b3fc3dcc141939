// The four classes of name search the CPU benches measure (bench:cores, bench:engine), and how
// each makes its query from an entity's name.

import type { Rng } from "./prng.js";
import { firstWordsTypo } from "./queries.js";
import { fullNameTypo, typedPrefix } from "./registry-shaped.js";

export type NameQuery = (rng: Rng, name: string) => string | null;

export type SearchClass = "exact" | "typo" | "first-words-typo" | "prefix";

export const SEARCH_CLASS_NAMES: Readonly<Record<SearchClass, string>> = {
  exact: "exact names",
  typo: "typo'd full names",
  "first-words-typo": "typo'd first two words",
  prefix: "type-ahead prefixes",
};

export const SEARCHES: ReadonlyArray<[SearchClass, NameQuery]> = [
  ["exact", (_rng, name) => name],
  ["typo", fullNameTypo],
  ["first-words-typo", firstWordsTypo],
  ["prefix", typedPrefix],
];
