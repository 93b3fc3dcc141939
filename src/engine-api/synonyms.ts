// Synonym expansion of a keyed search's q, with bounded work: rules are normalised once per change
// of the rule set (not per search) and indexed by the first word of each phrase they replace, so a
// search looks only at rules that can match; the variants, the words of q and the phrase tests a
// search may make are capped. A rule set planted by one key therefore cannot make another key's
// search (or the front) slow.

import type { SearchSettings, SynonymRule } from "./search-settings.js";

export const SYNONYM_LIMITS = {
  /** q and at most 3 rewrites of it are searched */
  variants: 4,
  /** a longer q is searched as it is, without synonyms */
  queryWords: 32,
  /** phrase tests and rewrites one expansion may make; what it found by then is searched */
  steps: 4096,
} as const;

interface CompiledRule {
  /** normalised phrases it replaces: its root, or all its phrases */
  from: string[];
  /** normalised distinct phrases it puts in their place */
  to: string[];
}

const words = (text: string): string[] => text.toLowerCase().split(/\s+/).filter(Boolean);
const normalised = (phrase: string): string => words(phrase).join(" ");

export class SynonymIndex {
  private readonly rules: CompiledRule[] = [];
  /** rule numbers (ascending) by the first word of a phrase they replace */
  private readonly byFirstWord = new Map<string, number[]>();

  constructor(rules: readonly SynonymRule[]) {
    for (const rule of rules) {
      const to = [...new Set(rule.synonyms.map(normalised).filter((p) => p !== ""))];
      const from = rule.root !== undefined ? [normalised(rule.root)].filter((p) => p !== "") : to;
      // a rule that can rewrite nothing costs nothing at search time
      if (!from.some((f) => to.some((p) => p !== f))) continue;
      const n = this.rules.push({ from, to }) - 1;
      for (const first of new Set(from.map((p) => p.split(" ")[0]))) {
        const list = this.byFirstWord.get(first);
        if (list) list.push(n);
        else this.byFirstWord.set(first, [n]);
      }
    }
  }

  /**
   * The query (normalised) and its synonym variants, within SYNONYM_LIMITS: rules apply in their
   * order, each to the variants found before it; a multi-way rule swaps any of its phrases for
   * the others, a one-way rule its root for its synonyms (the first occurrence of the phrase).
   */
  variants(q: string): string[] {
    const base = words(q);
    const variants = [base.join(" ")];
    if (this.rules.length === 0 || base.length > SYNONYM_LIMITS.queryWords) return variants;
    // the rules indexed by a word of some variant, in ascending order (a merge of their lists): a
    // rule is tested after every lower-numbered one, and each costs at least a step, so a search
    // reads at most SYNONYM_LIMITS.steps rules however many share its words
    const cursors = new Map<string, { list: readonly number[]; at: number }>();
    const follow = (variant: string, after: number): void => {
      for (const word of variant.split(" ")) {
        const list = this.byFirstWord.get(word);
        if (list && !cursors.has(word)) cursors.set(word, { list, at: firstAfter(list, after) });
      }
    };
    follow(variants[0], -1);
    let steps = 0;
    for (let n = -1; ;) {
      let lowest = Infinity;
      for (const c of cursors.values()) {
        while (c.at < c.list.length && c.list[c.at] <= n) c.at++;
        if (c.at < c.list.length && c.list[c.at] < lowest) lowest = c.list[c.at];
      }
      if (lowest === Infinity) return variants;
      n = lowest;
      const rule = this.rules[n];
      const before = variants.length;
      for (let v = 0; v < before; v++) {
        const current = ` ${variants[v]} `;
        for (const phrase of rule.from) {
          if (++steps > SYNONYM_LIMITS.steps) return variants;
          if (!current.includes(` ${phrase} `)) continue;
          for (const replacement of rule.to) {
            if (replacement === phrase) continue;
            if (++steps > SYNONYM_LIMITS.steps) return variants;
            const next = current.replace(` ${phrase} `, ` ${replacement} `).trim();
            if (variants.includes(next)) continue;
            variants.push(next);
            if (variants.length >= SYNONYM_LIMITS.variants) return variants;
            // later rules may match the new words; rules up to this one have had their turn
            follow(next, n);
          }
        }
      }
    }
  }
}

/** The index of the first number above `after` in an ascending list. */
function firstAfter(list: readonly number[], after: number): number {
  if (after < 0) return 0;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const indexes = new WeakMap<SearchSettings, { revision: number; index: SynonymIndex }>();

/** The index of the rules as they stand, rebuilt only after a rule was put or deleted. */
export function synonymIndexOf(settings: SearchSettings): SynonymIndex {
  const cached = indexes.get(settings);
  if (cached && cached.revision === settings.revision("synonym")) return cached.index;
  const index = new SynonymIndex(settings.list<SynonymRule>("synonym"));
  indexes.set(settings, { revision: settings.revision("synonym"), index });
  return index;
}
