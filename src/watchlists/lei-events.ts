// Which events a load's changes of one LEI make, and their bodies. Pure: the consumer reads the
// feed, groups it, asks this module, and writes what it says.
//
// The rules (docs/webhooks.md, LEI events), for the changes of one LEI from one load:
// - every group: one `lei.changed` carrying all its changes;
// - registrationStatus to LAPSED: `lei.lapsed`; to RETIRED: `lei.retired`;
// - registrationStatus to MERGED, or successorLeis set to a value: one `lei.merged`, with the
//   successors (from the change, else from the live record);
// - directParent or ultimateParent changed: one `lei.parent_changed`;
// - legalName changed: `lei.name_changed`.
// Each event's id comes from the feed row that made it (stable across runs and endpoints), so a
// receiver de-duplicates by it.

import type { StoredChange } from "../changes/model.js";
import type { LeiEventKind } from "../webhooks/model.js";

/** One LEI's changes from one load, in feed order. */
export interface ChangeGroup {
  lei: string;
  publication: string;
  changes: StoredChange[];
}

export interface LeiEvent {
  id: string;
  type: LeiEventKind;
  /** ISO 8601 */
  createdAt: string;
  data: Record<string, unknown>;
}

/** What the live record says, for the data an event carries beyond its changes. */
export interface LiveRecord {
  legalName: string | null;
  successorLeis: string[];
}

/** Groups rows by (lei, publication), keeping feed order of first appearance. */
export function groupChanges(rows: readonly StoredChange[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const c of rows) {
    const key = `${c.lei} ${c.publication}`;
    const g = groups.get(key);
    if (g) g.changes.push(c);
    else groups.set(key, { lei: c.lei, publication: c.publication, changes: [c] });
  }
  return [...groups.values()];
}

const listOf = (v: string | null): string[] => (v === null || v === "" ? [] : v.split("; ").filter((s) => s !== ""));

export function eventsOf(g: ChangeGroup, live: LiveRecord | null): LeiEvent[] {
  const first = g.changes[0];
  const changes = g.changes.map((c) => ({
    id: c.id,
    field: c.field,
    recordType: c.recordType,
    valueOld: c.valueOld,
    valueNew: c.valueNew,
  }));
  const base = { lei: g.lei, legalName: live?.legalName ?? null, publication: g.publication, detectedAt: first.detectedAt };
  const event = (type: LeiEventKind, from: StoredChange, data: Record<string, unknown>): LeiEvent => ({
    id: `lxc_${from.id}_${type.slice(4)}`,
    type,
    createdAt: from.detectedAt,
    data: { ...base, ...data },
  });
  const out: LeiEvent[] = [event("lei.changed", first, { changes })];
  const of = (field: string): StoredChange | undefined => g.changes.find((c) => c.field === field);
  const status = of("registrationStatus");
  const only = (c: StoredChange): { changes: typeof changes } => ({ changes: changes.filter((x) => x.id === c.id) });
  if (status?.valueNew === "LAPSED") out.push(event("lei.lapsed", status, only(status)));
  if (status?.valueNew === "RETIRED") out.push(event("lei.retired", status, only(status)));
  const successors = of("successorLeis");
  const merging = status?.valueNew === "MERGED" ? status : successors && listOf(successors.valueNew).length > 0 ? successors : undefined;
  if (merging) {
    const named = successors && listOf(successors.valueNew).length > 0 ? listOf(successors.valueNew) : (live?.successorLeis ?? []);
    const why = [status?.valueNew === "MERGED" ? status : undefined, successors].filter((c): c is StoredChange => c !== undefined);
    out.push(event("lei.merged", merging, { successorLeis: named, changes: changes.filter((x) => why.some((c) => c.id === x.id)) }));
  }
  const parents = g.changes.filter((c) => c.field === "directParent" || c.field === "ultimateParent");
  if (parents.length > 0) {
    const side = (c: StoredChange | undefined): { old: string | null; new: string | null } | null =>
      c ? { old: c.valueOld, new: c.valueNew } : null;
    out.push(
      event("lei.parent_changed", parents[0], {
        directParent: side(parents.find((c) => c.field === "directParent")),
        ultimateParent: side(parents.find((c) => c.field === "ultimateParent")),
        changes: changes.filter((x) => parents.some((c) => c.id === x.id)),
      }),
    );
  }
  const name = of("legalName");
  if (name) out.push(event("lei.name_changed", name, { legalNameOld: name.valueOld, legalNameNew: name.valueNew, ...only(name) }));
  return out;
}

/** The body every endpoint of the tenant receives: the envelope of mail events, `data` with the lists that watch the LEI. */
export function eventBody(e: LeiEvent, tenantId: string, watchlists: readonly string[]): string {
  return JSON.stringify({ id: e.id, type: e.type, created_at: e.createdAt, tenant_id: tenantId, data: { ...e.data, watchlists } });
}
