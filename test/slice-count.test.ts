// How many slices a generation gets (src/engine/slice-count.ts): without --shards, one slice up to
// RECORDS_PER_SLICE records, whatever the worker count (every worker serves every slice from one
// copy); with --shards N, N slices. Any persisted slice count is served as it is, unless a
// fixed --shards asks for another.

import t from "tap";
import { setTimeout as sleep } from "node:timers/promises";
import { expectedRecords, RECORDS_PER_SLICE, servesSlices, slicesFor } from "../src/engine/slice-count.js";
import { metric, startServer, tempDir, type RunningServer } from "./helpers/server.js";

t.test("the policy: one slice per RECORDS_PER_SLICE records, unless --shards fixes it", async (t) => {
  const auto = { fixed: null };
  t.equal(slicesFor(auto, 6_147), 1, "the sample: one slice");
  t.equal(slicesFor(auto, 3_430_000), 1, "the full registry: one slice");
  t.equal(slicesFor(auto, RECORDS_PER_SLICE), 1, "exactly a slice's worth: still one");
  t.equal(slicesFor(auto, RECORDS_PER_SLICE + 1), 2, "past it: two");
  t.equal(slicesFor(auto, null), 1, "size unknown: one");
  t.equal(slicesFor({ fixed: 3 }, 10), 3, "--shards 3 is 3 slices, whatever the size");
});

t.test("a persisted collection is served with its slices, unless --shards asks for others", async (t) => {
  t.ok(servesSlices({ fixed: null }, 1), "1 slice");
  t.ok(servesSlices({ fixed: null }, 4), "4 slices");
  t.notOk(servesSlices({ fixed: 2 }, 1), "--shards 2 serves 2 slices only");
  t.ok(servesSlices({ fixed: 2 }, 2));
});

t.test("the record count: the publication's own, else the CSV's size", async (t) => {
  t.equal(expectedRecords(3_430_123, 10), 3_430_123);
  t.equal(expectedRecords(null, 4_116_000_000), 3_430_000);
  t.equal(expectedRecords(null, null), null);
});

const sliceCounts = async (srv: RunningServer): Promise<number[]> => {
  const m = await srv.get("/metrics");
  const counts: number[] = [];
  for (let s = 0; ; s++) {
    const n = metric(m.text, "leidex_slice_documents", { slice: String(s) });
    if (n === null) return counts;
    counts.push(n);
  }
};

const waitFor = async (srv: RunningServer, pattern: RegExp, what: string): Promise<void> => {
  for (let i = 0; i < 600 && !pattern.test(srv.stdout()); i++) await sleep(50);
  if (!pattern.test(srv.stdout())) throw new Error(`no ${what} in the log:\n${srv.stdout()}`);
};

/** What a search answers, without its timing. */
const search = async (srv: RunningServer, q: string): Promise<{ found: number; leis: string[] }> => {
  const page = await srv.json<{ found: number; results: { lei: string }[] }>(`/v1/entities?q=${q}&limit=20`);
  return { found: page.found, leis: page.results.map((e) => e.lei) };
};

t.test("without --shards, the sample takes one slice; a reload keeps that", async (t) => {
  const srv = await startServer(t, { shards: "auto" });
  const counts = await sliceCounts(srv);
  t.same(counts, [6147], "one slice holds every record");
  t.match(srv.stdout(), /1 slice\(s\) for about 6142 records/, "the loader says how it sized the load, from the CSV's size");
  const found = await search(srv, "bank");
  t.ok(found.found > 20 && found.leis.length === 20, "searches answer");

  // a reload with a live generation finishes slice by slice, and every worker serves the new one
  srv.child.kill("SIGHUP");
  await waitFor(srv, /loaded 6147 records as lei_sample[\s\S]*loaded 6147 records as lei_sample/, "second load");
  t.same(await sliceCounts(srv), counts, "the reload has the same slice");
  t.same(await search(srv, "bank"), found, "and answers the same");
});

t.test("a collection persisted with more slices is served as it is; --shards that differs rebuilds it", async (t) => {
  const dataDir = tempDir(t);
  const two = await startServer(t, { shards: 2, dataDir });
  t.same((await sliceCounts(two)).length, 2, "--shards 2: two slices");
  const answer = await search(two, "holding");
  await two.stop();

  const auto = await startServer(t, { shards: "auto", dataDir });
  t.match(auto.stdout(), /serving lei_sample \(6147 records\) from its segments/, "no rebuild without --shards");
  t.equal((await sliceCounts(auto)).length, 2, "still two slices");
  t.same(await search(auto, "holding"), answer, "the same answers");
  await auto.stop();

  const three = await startServer(t, { shards: 3, dataDir });
  t.match(three.stdout(), /built for 2 slices, --shards asks for 3/, "--shards 3 cannot serve two slices");
  t.equal((await sliceCounts(three)).length, 3, "rebuilt into 3 slices");
  t.same(await search(three, "holding"), answer, "the same answers on 3 slices");
});
