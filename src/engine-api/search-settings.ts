// Synonyms, presets, stopwords and aliases (Typesense paths): this node's copy in memory, which
// the keyed API's searches read, written through to the state store (sqlite-settings.ts, or
// pg-settings.ts with --database, where other nodes' writes reach the copy through
// store/replica.ts). Synonyms belong to the alias `lei`, not to a dated collection, so they
// survive the daily reload into a fresh collection.

import { ReplicatedState, type ReplicaSource } from "../store/replica.js";

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

export type SettingKind = "synonym" | "preset" | "stopwords" | "alias";
const KINDS: SettingKind[] = ["synonym", "preset", "stopwords", "alias"];

export interface SettingsSnapshot {
  version: number;
  items: { kind: SettingKind; name: string; body: unknown }[];
}

/** Where the settings are stored. Writes answer the version they made (null: nothing changed). */
export interface SettingsBackend extends ReplicaSource<SettingsSnapshot> {
  put(kind: SettingKind, name: string, body: unknown): Promise<number>;
  remove(kind: SettingKind, name: string): Promise<number | null>;
  close(): Promise<void>;
}

const keyOf = (kind: SettingKind, name: string): string => `${kind}\u0000${name}`;

export class SearchSettings extends ReplicatedState<SettingsSnapshot> {
  private items = new Map<string, unknown>();
  /** changes per kind, so what is derived from a kind's items (synonyms.ts) knows when to redo it */
  private readonly changes = new Map<SettingKind, number>();
  private constructor(private readonly backend: SettingsBackend) {
    super(backend);
  }

  static async open(backend: SettingsBackend): Promise<SearchSettings> {
    const settings = new SearchSettings(backend);
    await settings.replica.start();
    return settings;
  }

  async put<T>(kind: SettingKind, name: string, value: T): Promise<T> {
    const version = await this.backend.put(kind, name, value);
    this.items.set(keyOf(kind, name), value);
    this.changed(kind);
    this.replica.wrote(version);
    return value;
  }

  get<T>(kind: SettingKind, name: string): T | null {
    return (this.items.get(keyOf(kind, name)) as T | undefined) ?? null;
  }

  list<T>(kind: SettingKind): T[] {
    const out: T[] = [];
    for (const [key, value] of this.items) if (key.startsWith(`${kind}\u0000`)) out.push(value as T);
    return out;
  }

  /** Whether this node's copy had it; it is gone from the store either way. */
  async delete(kind: SettingKind, name: string): Promise<boolean> {
    if (!this.items.has(keyOf(kind, name))) return false;
    const version = await this.backend.remove(kind, name);
    this.items.delete(keyOf(kind, name));
    this.changed(kind);
    if (version !== null) this.replica.wrote(version);
    return true;
  }

  revision(kind: SettingKind): number {
    return this.changes.get(kind) ?? 0;
  }

  private changed(kind: SettingKind): void {
    this.changes.set(kind, this.revision(kind) + 1);
  }

  protected apply(snapshot: SettingsSnapshot): void {
    this.items = new Map(snapshot.items.map((item) => [keyOf(item.kind, item.name), item.body]));
    for (const kind of KINDS) this.changed(kind);
  }

  close(): Promise<void> {
    return this.backend.close();
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
