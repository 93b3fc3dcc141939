// How many slices a generation gets (src/engine/slice-count.ts): without --shards, a shard thread
// per core and slices sized to the data, the front keeping a core; with --shards N, N slices. A
// collection persisted with fewer slices than the threads is served as it is; one that a fixed
// --shards cannot serve is rebuilt.

import t from "tap";
import { availableParallelism } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { expectedRecords, RECORDS_PER_SLICE, servesSlices, slicesFor } from "../src/engine/slice-count.js";
import { metric, startServer, tempDir, type RunningServer } from "./helpers/server.js";

t.test("the policy: a core for the front, another slice per RECORDS_PER_SLICE, at most a slice per thread", async (t) => {
  const two = { threads: 2, fixed: false };
  t.equal(slicesFor(two, 6_147), 1, "the sample on 2 cores: one slice");
  t.equal(slicesFor(two, 1_000_000), 1, "1M on 2 cores: one slice");
  t.equal(slicesFor(two, RECORDS_PER_SLICE), 1, "exactly a slice's worth: still one");
  t.equal(slicesFor(two, RECORDS_PER_SLICE + 1), 2, "past it: two");
  t.equal(slicesFor(two, 3_430_000), 2, "the full registry on 2 cores: two");
  t.equal(slicesFor(two, 50_000_000), 2, "never more slices than threads");
  t.equal(slicesFor(two, null), 1, "size unknown: the front's core only");
  t.equal(slicesFor({ threads: 1, fixed: false }, 3_430_000), 1, "one core: one slice");
  t.equal(slicesFor({ threads: 8, fixed: false }, 1_000_000), 7, "8 cores: every core but the front's");
  t.equal(slicesFor({ threads: 3, fixed: true }, 10), 3, "--shards 3 is 3 slices, whatever the size");
});

t.test("a persisted collection is served when the threads can hold its slices", async (t) => {
  t.ok(servesSlices({ threads: 4, fixed: false }, 1), "1 slice on 4 threads");
  t.ok(servesSlices({ threads: 4, fixed: false }, 4), "4 slices on 4 threads");
  t.notOk(servesSlices({ threads: 2, fixed: false }, 3), "3 slices need 3 threads");
  t.notOk(servesSlices({ threads: 2, fixed: true }, 1), "--shards 2 serves 2 slices only");
  t.ok(servesSlices({ threads: 2, fixed: true }, 2));
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

const cores = availableParallelism();
const autoSlices = Math.max(1, cores - 1);

t.test("without --shards, the sample takes a slice per core but the front's; a reload keeps that", async (t) => {
  const srv = await startServer(t, { shards: "auto" });
  const counts = await sliceCounts(srv);
  t.equal(counts.length, autoSlices, `${autoSlices} slice(s) on ${cores} core(s)`);
  t.equal(
    counts.reduce((a, b) => a + b, 0),
    6147,
    "the slices hold every record",
  );
  t.match(srv.stdout(), /\d+ slice\(s\) for about 6142 records/, "the loader says how it sized the load, from the CSV's size");
  const found = await search(srv, "bank");
  t.ok(found.found > 20 && found.leis.length === 20, "searches answer");

  // a reload with a live generation finishes slice by slice and drops its build on unused threads
  srv.child.kill("SIGHUP");
  await waitFor(srv, /loaded 6147 records as lei_sample[\s\S]*loaded 6147 records as lei_sample/, "second load");
  const after = await sliceCounts(srv);
  t.same(after, counts, "the reload has the same slices, each as full");
  t.same(await search(srv, "bank"), found, "and answers the same");
});

t.test("a collection persisted with fewer slices is served as it is; --shards that differs rebuilds it", async (t) => {
  const dataDir = tempDir(t);
  const one = await startServer(t, { shards: 1, dataDir });
  t.same((await sliceCounts(one)).length, 1, "--shards 1: one slice");
  const answer = await search(one, "holding");
  await one.stop();

  const auto = await startServer(t, { shards: "auto", dataDir });
  t.match(auto.stdout(), /serving lei_sample \(6147 records\) from its segments/, "no rebuild without --shards");
  t.equal((await sliceCounts(auto)).length, 1, "still one slice");
  t.same(await search(auto, "holding"), answer, "the same answers");
  await auto.stop();

  const three = await startServer(t, { shards: 3, dataDir });
  t.match(three.stdout(), /built for 1 slices, this server runs 3/, "--shards 3 cannot serve one slice");
  t.equal((await sliceCounts(three)).length, 3, "rebuilt into 3 slices");
  t.same(await search(three, "holding"), answer, "the same answers on 3 slices");
});
