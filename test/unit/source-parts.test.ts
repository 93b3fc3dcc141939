// The part states a GLEIF load records (src/golden-copy/source-parts.ts): fetched is fresh; failed
// with the live copy carried is stale since that copy's load, keeping where it came from; failed
// with none is missing since its first failure, across loads; a reason is one line naming no
// server path.

import t from "tap";
import { oneLineReason, partStates, staleParts, type SourceParts } from "../../src/golden-copy/source-parts.js";

const T1 = "2026-09-30T08:40:00.000Z";
const T2 = "2026-09-30T16:40:00.000Z";
const T3 = "2026-10-01T00:40:00.000Z";
const files = {
  rr: "/d/downloads/level2-rr-a.zip",
  repex: "/d/downloads/level2-repex-a.zip",
  isin: "/d/downloads/i.zip",
  bic: "/d/downloads/b.zip",
};
const keep = (s: string): string => s;

t.test("fresh, then stale since the copy's load, then fresh again", async (t) => {
  const first = partStates(null, { fetched: { rr: "P1", repex: "P1", isin: "i1", bic: "b1" }, failures: {}, files, loadedAt: T1 }, keep);
  t.same(first.rr, { status: "fresh", from: "P1", loadedAt: T1, since: null, reason: null });
  t.same(staleParts(first), []);
  const second = partStates(
    first,
    { fetched: { repex: "P2", isin: "i2", bic: "b2" }, failures: { rr: "HTTP 503" }, files, loadedAt: T2 },
    keep,
  );
  t.same(second.rr, { status: "stale", from: "P1", loadedAt: T1, since: T1, reason: "HTTP 503" });
  t.same(second.repex, { status: "fresh", from: "P2", loadedAt: T2, since: null, reason: null });
  const third = partStates(
    second,
    { fetched: { repex: "P3", isin: "i3", bic: "b3" }, failures: { rr: "HTTP 500" }, files, loadedAt: T3 },
    keep,
  );
  t.same(third.rr, { status: "stale", from: "P1", loadedAt: T1, since: T1, reason: "HTTP 500" }, "a copy of a copy keeps its origin");
  const fourth = partStates(third, { fetched: { rr: "P4", repex: "P4", isin: "i4", bic: "b4" }, failures: {}, files, loadedAt: T3 }, keep);
  t.equal(fourth.rr.status, "fresh");
});

t.test("missing on a first start, since the first failure, across loads", async (t) => {
  const none = { ...files, rr: null };
  const first = partStates(
    null,
    { fetched: { repex: "P1", isin: "i1", bic: "b1" }, failures: { rr: "timeout" }, files: none, loadedAt: T1 },
    keep,
  );
  t.same(first.rr, { status: "missing", from: null, loadedAt: null, since: T1, reason: "timeout" });
  const second = partStates(
    first,
    { fetched: { repex: "P2", isin: "i2", bic: "b2" }, failures: { rr: "HTTP 503" }, files: none, loadedAt: T2 },
    keep,
  );
  t.same(second.rr, { status: "missing", from: null, loadedAt: null, since: T1, reason: "HTTP 503" });
  t.same(staleParts(second), [{ part: "rr", status: "missing", since: T1, reason: "HTTP 503" }]);
});

t.test("a part not fetched by this load keeps its state", async (t) => {
  const live: SourceParts = partStates(
    null,
    { fetched: { rr: "P1", repex: "P1", isin: "i1", bic: "b1" }, failures: {}, files, loadedAt: T1 },
    keep,
  );
  const next = partStates(live, { fetched: { rr: "P2" }, failures: {}, files, loadedAt: T2 }, keep);
  t.same(next.isin, live.isin);
});

t.test("a reason is one line, data-dir paths cut to their file names", async (t) => {
  t.equal(
    oneLineReason("corrupt zip /srv/leidex/data/downloads/level2-rr-x.zip: CRC-32\n  bad", "/srv/leidex/data"),
    "corrupt zip level2-rr-x.zip: CRC-32 bad",
  );
  t.equal(oneLineReason("source file not found: data/downloads/level2-isin-i.zip", "./data"), "source file not found: level2-isin-i.zip");
  t.equal(
    oneLineReason("GLEIF API https://api.gleif.org/metadata/x answered HTTP 503", "data"),
    "GLEIF API https://api.gleif.org/metadata/x answered HTTP 503",
  );
  t.ok(oneLineReason("x".repeat(1000), "/d").length <= 300);
});
