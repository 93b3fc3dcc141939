// Which field changes make which LEI event (src/watchlists/lei-events.ts, docs/webhooks.md "LEI
// events"), the renewal thresholds (renewal-sweep.ts) and the filter rule (change-events.ts), in
// process: the rules as the docs state them, one case each.

import t from "tap";
import type { StoredChange } from "../../src/changes/model.js";
import { filterMatches } from "../../src/watchlists/change-events.js";
import { eventBody, eventsOf, groupChanges } from "../../src/watchlists/lei-events.js";
import { daysUntil, thresholdFor } from "../../src/watchlists/renewal-sweep.js";

const LEI = "549300YRNUQ0FK60YT75";
let id = 100;
const change = (field: StoredChange["field"], valueOld: string | null, valueNew: string | null, lei = LEI): StoredChange => ({
  id: String(++id),
  lei,
  recordType: field === "directParent" || field === "ultimateParent" ? "relationship" : "lei",
  field,
  valueOld,
  valueNew,
  publication: "2026-09-30T16:00:00Z",
  detectedAt: "2026-09-30T16:04:11.120Z",
});
const types = (changes: StoredChange[], live = { legalName: "Lino Engineering AB", successorLeis: ["5299001ERX0K10IZUL40"] }): string[] =>
  eventsOf({ lei: LEI, publication: changes[0].publication, changes }, live).map((e) => e.type);

t.test("each change makes lei.changed; the named ones their own type, once per load", async (t) => {
  t.same(types([change("hqAddress", "a", "b")]), ["lei.changed"], "an address: lei.changed only");
  t.same(types([change("registrationStatus", "ISSUED", "LAPSED")]), ["lei.changed", "lei.lapsed"]);
  t.same(types([change("registrationStatus", "ISSUED", "RETIRED")]), ["lei.changed", "lei.retired"]);
  t.same(types([change("registrationStatus", "ISSUED", "ANNULLED")]), ["lei.changed"], "other statuses: lei.changed only");
  t.same(types([change("registrationStatus", "LAPSED", "ISSUED")]), ["lei.changed"], "a renewal is no lapse");
  t.same(types([change("legalName", "Old AB", "New AB")]), ["lei.changed", "lei.name_changed"]);
  t.same(
    types([change("directParent", "A", "B"), change("ultimateParent", "C", "D")]),
    ["lei.changed", "lei.parent_changed"],
    "one for both parents",
  );
  t.same(
    types([change("nextRenewalDate", "2026-01-01", "2027-01-01")]),
    ["lei.changed"],
    "a new renewal date: lei.changed (the sweep reminds)",
  );
  const merged = eventsOf(
    { lei: LEI, publication: "p", changes: [change("registrationStatus", "ISSUED", "MERGED"), change("successorLeis", null, "X; Y")] },
    null,
  );
  t.same(
    merged.map((e) => e.type),
    ["lei.changed", "lei.merged"],
    "MERGED and successors set: one lei.merged",
  );
  t.same(merged[1].data.successorLeis, ["X", "Y"], "the successors from the change");
  const fromLive = eventsOf(
    { lei: LEI, publication: "p", changes: [change("registrationStatus", "ISSUED", "MERGED")] },
    {
      legalName: null,
      successorLeis: ["Z"],
    },
  );
  t.same(fromLive[1].data.successorLeis, ["Z"], "else from the live record");
  t.same(types([change("successorLeis", "X", null)]), ["lei.changed"], "successors removed: no lei.merged");
});

t.test("ids, bodies and groups", async (t) => {
  const lapse = change("registrationStatus", "ISSUED", "LAPSED");
  const [all, lapsed] = eventsOf({ lei: LEI, publication: lapse.publication, changes: [lapse] }, null);
  t.equal(lapsed.id, `lxc_${lapse.id}_lapsed`, "stable ids from the feed row");
  t.equal(all.id, `lxc_${lapse.id}_changed`);
  const body = JSON.parse(eventBody(lapsed, "tn_1", ["wl_b", "wl_a"]));
  t.match(body, { id: lapsed.id, type: "lei.lapsed", tenant_id: "tn_1", data: { lei: LEI, watchlists: ["wl_b", "wl_a"] } });
  t.same(body.data.changes, [{ id: lapse.id, field: "registrationStatus", recordType: "lei", valueOld: "ISSUED", valueNew: "LAPSED" }]);
  const groups = groupChanges([
    change("legalName", "a", "b"),
    change("legalName", "c", "d", "5299001ERX0K10IZUL40"),
    change("hqAddress", "e", "f"),
  ]);
  t.same(
    groups.map((g) => [g.lei, g.changes.length]),
    [
      [LEI, 2],
      ["5299001ERX0K10IZUL40", 1],
    ],
  );
});

t.test("renewal thresholds: the smallest not below the days left", async (t) => {
  t.same([61, 60, 31, 30, 20, 8, 7, 2, 1, 0, -1].map(thresholdFor), [null, 60, 60, 30, 30, 30, 7, 7, 1, 1, null]);
  t.equal(daysUntil("2026-12-29T00:00:00+00:00", "2026-11-29"), 30);
  t.equal(daysUntil("2026-12-29T23:30:00-05:00", "2026-11-29"), 30, "the calendar day as written");
  t.equal(daysUntil("not a date", "2026-11-29"), null);
});

t.test("a filter list watches members now, and those leaving or joining in the load", async (t) => {
  const P = "5299001ERX0K10IZUL40";
  const g = (changes: StoredChange[]) => ({ lei: LEI, publication: "p", changes });
  t.ok(filterMatches({ directParent: P }, g([change("legalName", "a", "b")]), { directParent: P, ultimateParent: null }));
  t.notOk(filterMatches({ ultimateParent: P }, g([change("legalName", "a", "b")]), { directParent: P, ultimateParent: null }));
  t.ok(
    filterMatches({ directParent: P }, g([change("directParent", P, "OTHER")]), { directParent: "OTHER", ultimateParent: null }),
    "leaving",
  );
  t.notOk(filterMatches({ directParent: P }, g([change("legalName", "a", "b")]), null));
});
