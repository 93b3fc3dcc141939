// What watchlists read of the live collection, through the lookup the public API uses: an LEI's
// record (name, successors, next renewal date, parents) and, for filter lists, the entities whose
// direct or ultimate parent an LEI is (the Level 2 tables of the live generation).

import type { Collection } from "../engine/collection.js";
import type { LeiService } from "../lei/service.js";
import { DIRECT, ULTIMATE } from "../level2/layout.js";
import type { LiveRecord } from "./lei-events.js";

export type ParentKind = "ultimateParent" | "directParent";

export interface WatchedRecord extends LiveRecord {
  nextRenewalDate: string | null;
  directParent: string | null;
  ultimateParent: string | null;
}

export interface LiveData {
  /** whether a collection is live (nothing is read before) */
  ready(): boolean;
  /** the LEI's live record, or null where the collection lacks it */
  record(lei: string): WatchedRecord | null;
  /** the entities whose parent of that kind is `lei` */
  childrenOf(lei: string, kind: ParentKind): string[];
}

const PAGE = 1000;
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export function liveDataOf(collection: Collection, lei: LeiService): LiveData {
  return {
    ready: () => collection.current !== null,
    record: (code) =>
      lei.entity(code, (r) => {
        if (r.kind !== "found") return null;
        const doc = JSON.parse(Buffer.from(r.json).toString("utf8")) as Record<string, unknown>;
        const successors = str(doc.successorLeis);
        return {
          legalName: str(doc.legalName),
          successorLeis: successors === null ? [] : successors.split("; ").filter((s) => s !== ""),
          nextRenewalDate: str(doc.nextRenewalDate),
          directParent: str(doc.directParent),
          ultimateParent: str(doc.ultimateParent),
        };
      }),
    childrenOf: (parent, kind) => {
      const family = collection.current?.family;
      if (!family) return [];
      const type = kind === "ultimateParent" ? ULTIMATE : DIRECT;
      const out: string[] = [];
      for (let from = 0; ; from += PAGE) {
        const page = family.reporters(parent, type, from, PAGE);
        for (const e of page.items) out.push(e.lei);
        if (page.items.length < PAGE || from + PAGE >= page.found) break;
      }
      return [...new Set(out)];
    },
  };
}
