// Synonyms, presets and stopwords (Typesense paths), kept in the state store and applied to the
// keyed API's searches. Synonyms belong to the alias `lei`, not to a dated collection, so they
// survive the daily reload into a fresh collection.

import { migrate, type StateDb } from "../store/state-db.js";

export interface SynonymRule {
  id: string;
  synonyms: string[];
  root?: string;
}
export interface Preset {
  name: string;
  value: Record<string, string | number | boolean>;
}
export interface StopwordSet {
  id: string;
  stopwords: string[];
  locale?: string;
}

type Kind = "synonym" | "preset" | "stopwords" | "alias";

export class SearchSettings {
  private readonly items = new Map<string, unknown>();
  /** changes per kind, so what is derived from a kind's items (synonyms.ts) knows when to redo it */
  private readonly changes = new Map<Kind, number>();

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS search_settings (kind TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, name))`,
    ]);
    for (const row of db.prepare("SELECT kind, name, body FROM search_settings").all() as { kind: Kind; name: string; body: string }[]) {
      this.items.set(`${row.kind}\u0000${row.name}`, JSON.parse(row.body));
    }
  }

  put<T>(kind: Kind, name: string, value: T): T {
    this.db
      .prepare(
        "INSERT INTO search_settings (kind, name, body) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body",
      )
      .run(kind, name, JSON.stringify(value));
    this.items.set(`${kind}\u0000${name}`, value);
    this.changed(kind);
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
    if (had) {
      this.db.prepare("DELETE FROM search_settings WHERE kind = ? AND name = ?").run(kind, name);
      this.changed(kind);
    }
    return had;
  }

  revision(kind: Kind): number {
    return this.changes.get(kind) ?? 0;
  }

  private changed(kind: Kind): void {
    this.changes.set(kind, this.revision(kind) + 1);
  }
}

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
