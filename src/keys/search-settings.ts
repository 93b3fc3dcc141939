// Synonyms, presets and stopwords (Typesense paths), kept in the state store and applied to the
// keyed API's searches. Synonyms belong to the alias `lei`, not to a dated collection, so they
// survive the daily reload into a fresh collection.

import { migrate, type StateDb } from "../store/state-db.js";

export interface SynonymRule { id: string; synonyms: string[]; root?: string }
export interface Preset { name: string; value: Record<string, string | number | boolean> }
export interface StopwordSet { id: string; stopwords: string[]; locale?: string }

type Kind = "synonym" | "preset" | "stopwords" | "alias";

export class SearchSettings {
  private readonly items = new Map<string, unknown>();

  constructor(private readonly db: StateDb) {
    migrate(db, [`CREATE TABLE IF NOT EXISTS search_settings (kind TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, name))`]);
    for (const row of db.prepare("SELECT kind, name, body FROM search_settings").all() as { kind: Kind; name: string; body: string }[]) {
      this.items.set(`${row.kind}\u0000${row.name}`, JSON.parse(row.body));
    }
  }

  put<T>(kind: Kind, name: string, value: T): T {
    this.db.prepare("INSERT INTO search_settings (kind, name, body) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body")
      .run(kind, name, JSON.stringify(value));
    this.items.set(`${kind}\u0000${name}`, value);
    return value;
  }

  get<T>(kind: Kind, name: string): T | null {
    return (this.items.get(`${kind}\u0000${name}`) as T | undefined) ?? null;
  }

  list<T>(kind: Kind): T[] {
    const out: T[] = [];
    for (const [key, value] of this.items) if (key.startsWith(`${kind}\u0000`)) out.push(value as T);
    return out;
  }

  delete(kind: Kind, name: string): boolean {
    const had = this.items.delete(`${kind}\u0000${name}`);
    if (had) this.db.prepare("DELETE FROM search_settings WHERE kind = ? AND name = ?").run(kind, name);
    return had;
  }
}

const words = (text: string): string[] => text.toLowerCase().split(/\s+/).filter(Boolean);

/** A preset fills only what neither the request nor a scoped key set. */
export function withPreset(params: Record<string, string>, preset: Preset | null): Record<string, string> {
  if (!preset) return params;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(preset.value)) out[k] = String(v);
  return Object.assign(out, params);
}

export function withoutStopwords(q: string, set: StopwordSet): string {
  const stop = new Set(set.stopwords.map((w) => w.toLowerCase()));
  const kept = q.split(/\s+/).filter((w) => w !== "" && !stop.has(w.toLowerCase()));
  return kept.length > 0 ? kept.join(" ") : q;
}

/**
 * The query and its synonym variants (at most `max`): a multi-way rule swaps any of its phrases
 * for the others; a one-way rule swaps its root for its synonyms.
 */
export function synonymVariants(q: string, rules: SynonymRule[], max = 4): string[] {
  const variants = [words(q).join(" ")];
  for (const rule of rules) {
    const from = rule.root !== undefined ? [rule.root] : rule.synonyms;
    for (const current of [...variants]) {
      for (const phrase of from.map((p) => words(p).join(" "))) {
        const at = ` ${current} `.indexOf(` ${phrase} `);
        if (phrase === "" || at < 0) continue;
        for (const replacement of rule.synonyms.map((p) => words(p).join(" "))) {
          if (replacement === phrase) continue;
          const next = ` ${current} `.replace(` ${phrase} `, ` ${replacement} `).trim();
          if (!variants.includes(next) && variants.length < max) variants.push(next);
        }
      }
    }
  }
  return variants;
}
