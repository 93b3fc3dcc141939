// The four classes of name search the CPU benches measure (bench:cores, bench:engine), how each
// makes its query from an entity's name, and the corpora the names come from.

import type { Rng } from "./prng.js";
import { firstWordsTypo } from "./queries.js";
import { fullNameTypo, typedPrefix } from "./registry-shaped.js";

export type NameQuery = (rng: Rng, name: string) => string | null;

/** The corpora the CPU benches load and take names from. */
export type Corpus = "synthetic" | "registry-shaped";

export const CORPUS_NOTE: Readonly<Record<Corpus, string>> = {
  synthetic: "synthetic golden copy (generate.ts: open vocabulary of coined words, like the registry's)",
  "registry-shaped": "registry-shaped stress corpus (registry-shaped.ts: the real sample's words recombined into near-twins)",
};

/** `--corpus`: synthetic unless given. */
export function corpusOf(value: string | undefined): Corpus {
  const corpus = value ?? "synthetic";
  if (corpus !== "synthetic" && corpus !== "registry-shaped") throw new Error("--corpus is synthetic or registry-shaped");
  return corpus;
}

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
