// How alike two entity names are, in [0, 1], after the analysis search uses (engine/text.ts:
// NFKC, case, diacritics, S.R.L. = SRL) and with legal-form words brought to one spelling, as the
// ELF code list spells them in the entity's country (legal-form-words.ts: "Limited" = "Ltd" in
// Britain, "Aktiengesellschaft" = "AG" in Germany), so that the distinctive words weigh most.
// Words match when equal or within a typo (one edit from 5 letters, two from 9).

import { tokenize } from "../engine/text.js";
import type { FormTable } from "./legal-form-words.js";

export interface AnalysedName {
  /** the distinctive words, in order */
  core: string[];
  /** the legal-form words, canonical */
  forms: string[];
}

/**
 * The name's words with legal forms in one spelling (the country's, `forms`), split into
 * distinctive words and forms. A name of legal-form words only ("Trust Company") keeps them as its
 * distinctive words: two such names are not alike for having no other words.
 */
export function analyseName(name: string, forms: FormTable): AnalysedName {
  const out = forms.fold(tokenize(name));
  const core = out.filter((w) => !forms.forms.has(w));
  return core.length > 0 ? { core, forms: out.filter((w) => forms.forms.has(w)) } : { core: out, forms: [] };
}

/** The name without its legal-form words (for a second search), or null when it has none. */
export function withoutLegalForms(name: string, forms: FormTable): string | null {
  const { core, forms: found } = analyseName(name, forms);
  return found.length > 0 && core.length > 0 ? core.join(" ") : null;
}

/** Whether a and b are within `max` edits, a swap of neighbours counting one (optimal string alignment). */
function withinEdits(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, before[j - 2] + 1);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > max) return false;
    before = prev;
    prev = row;
  }
  return prev[b.length] <= max;
}

export const typosAllowed = (word: string): number => (word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0);

export function wordsAlike(a: string, b: string): boolean {
  return a === b || withinEdits(a, b, Math.min(typosAllowed(a), typosAllowed(b)));
}

/** A word matched within a typo counts this much of an equal one: an exact name beats its near-twins. */
const TYPO_WORD = 0.8;

/** Dice coefficient of two word lists, a word matching at most one word of the other. */
function diceOf(a: string[], b: string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const used = new Array<boolean>(b.length).fill(false);
  let shared = 0;
  for (const w of a) {
    let at = b.findIndex((v, j) => !used[j] && v === w);
    let weight = 1;
    if (at < 0) {
      at = b.findIndex((v, j) => !used[j] && wordsAlike(w, v));
      weight = TYPO_WORD;
    }
    if (at >= 0) {
      used[at] = true;
      shared += weight;
    }
  }
  return (2 * shared) / (a.length + b.length);
}

/**
 * Similarity in [0, 1]: the distinctive words weigh 0.9, the legal forms 0.1 (forms that agree,
 * or a side that names none, count as agreeing).
 */
export function nameSimilarity(query: AnalysedName, candidate: AnalysedName): number {
  const core = diceOf(query.core, candidate.core);
  const forms = query.forms.length === 0 || candidate.forms.length === 0 ? 1 : diceOf(query.forms, candidate.forms);
  return 0.9 * core + 0.1 * forms;
}
