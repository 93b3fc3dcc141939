// A delta's Level 2 build over the full file the live tables were built from takes that file's
// parsed rows and records from the live directory and parses only the deltas: its tables and
// records are byte for byte those of a build that parses everything, and the full file is not
// read (it is overwritten here with bytes of the same size, which a parse could not take).

import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t, { type Test } from "tap";
import { buildLevel2, type Level2Input } from "../src/level2/build.js";
import {
  CHILD_COUNTS,
  readPlace,
  REPEX,
  REPEX_RECORDS,
  RR_BY_END,
  RR_BY_START,
  RR_PARSED,
  RR_RECORDS,
  REPEX_PARSED,
  type TableLayout,
} from "../src/level2/layout.js";
import { parseCsv } from "./helpers/fixture.js";
import { sampleLevel2Text } from "./helpers/gleif-imitation.js";
import { tempDir } from "./helpers/server.js";

const work = tempDir(t, "leidex-parsed-rows-");
const csv = (rows: string[][]): string => rows.map((r) => r.map((v) => `"${v.replace(/"/g, '""')}"`).join(",")).join("\n") + "\n";

const [rrHeader, ...rrRows] = parseCsv(sampleLevel2Text("rr"));
const [repexHeader, ...repexRows] = parseCsv(sampleLevel2Text("repex"));
const RR = (name: string): number => rrHeader.indexOf(`Relationship.${name}`);
const direct = rrRows.filter((r) => r[RR("RelationshipType")] === "IS_DIRECTLY_CONSOLIDATED_BY");
const padded = (row: string[]): string[] => repexHeader.map((_, i) => row[i] ?? "");
const DELETED_AT = "2026-10-01T07:12:00Z";

const write = (name: string, text: string): string => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};
const rrFull = write("rr-full.csv", csv([rrHeader, ...rrRows]));
const repexFull = write("repex-full.csv", csv([repexHeader, ...repexRows.map(padded)]));
// deltas: a direct relationship deleted, another one's status changed; an exception deleted, one added
const rrDelta = write(
  "rr-delta.csv",
  csv([
    [...rrHeader, "DeletedAt"],
    [...direct[0], DELETED_AT],
    [...direct[1].map((v, i) => (i === RR("RelationshipStatus") ? "INACTIVE" : v)), ""],
  ]),
);
const repexDelta = write(
  "repex-delta.csv",
  csv([
    repexHeader,
    padded(repexRows[0]).map((v, i) => (repexHeader[i] === "DeletedAt" ? DELETED_AT : v)),
    padded([direct[0][RR("StartNode.NodeID")], "DIRECT_ACCOUNTING_CONSOLIDATION_PARENT", "NON_CONSOLIDATING"]),
  ]),
);

const input = (
  files: { rr: string; repex: string },
  deltas: Level2Input["deltas"],
  liveDir?: string,
  liveDeltas?: Level2Input["liveDeltas"],
): Level2Input => ({
  files: { ...files, isin: null, bic: null },
  expectedRows: { rr: null, repex: null },
  minimum: { relationships: 0, exceptions: 0, isins: 0, bics: 0 },
  deltas,
  liveDir,
  liveDeltas,
});

const dirOf = (name: string): string => {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
};

t.test("a delta's build takes the full file's rows from the live directory; its tables are a full parse's", async (t) => {
  const live = dirOf("live");
  await buildLevel2(input({ rr: rrFull, repex: repexFull }, {}), live);
  t.ok(statSync(join(live, RR_PARSED)).size > 0, "the full load keeps its parsed rr rows");
  t.ok(statSync(join(live, REPEX_PARSED)).size > 0, "and repex rows");

  // the reference: everything parsed, from copies of the full files
  const parsed = dirOf("parsed");
  const rrCopy = join(dirOf("copies"), "rr-full.csv"),
    repexCopy = join(work, "copies", "repex-full.csv");
  copyFileSync(rrFull, rrCopy);
  copyFileSync(repexFull, repexCopy);
  const reference = await buildLevel2(input({ rr: rrCopy, repex: repexCopy }, { rr: [rrDelta], repex: [repexDelta] }), parsed);

  // the full files, same names and sizes, made unreadable as CSV: the build must not read them
  for (const file of [rrFull, repexFull]) writeFileSync(file, Buffer.alloc(statSync(file).size, 0x22));
  const delta = dirOf("delta");
  const built = await buildLevel2(input({ rr: rrFull, repex: repexFull }, { rr: [rrDelta], repex: [repexDelta] }, live), delta);

  t.same(
    { relationships: built.counts.relationships, exceptions: built.counts.exceptions, skipped: built.counts.skipped },
    { relationships: reference.counts.relationships, exceptions: reference.counts.exceptions, skipped: reference.counts.skipped },
  );
  t.equal(built.counts.relationships, rrRows.length - 1, "the deletion took one relationship out");
  t.same(Buffer.from(built.parents.direct), Buffer.from(reference.parents.direct), "the same parents");
  const files = readdirSync(parsed).sort();
  t.same(readdirSync(delta).sort(), files);
  for (const file of files) t.ok(readFileSync(join(delta, file)).equals(readFileSync(join(parsed, file))), `${file} is the same`);
  t.equal(statSync(join(delta, RR_PARSED)).ino, statSync(join(live, RR_PARSED)).ino, "the parsed rows are the live directory's, linked");
});

t.test("the parsed rows of another file are not taken: that file is parsed", async (t) => {
  const other = write("rr-other.csv", csv([rrHeader, ...rrRows.slice(1)]));
  const built = await buildLevel2(
    { ...input({ rr: other, repex: repexFull }, {}, join(work, "live")), files: { rr: other, repex: null, isin: null, bic: null } },
    dirOf("other"),
  );
  t.equal(built.counts.relationships, rrRows.length - 1, "the other file's relationships");
});

/** Each row of a table with its record in place of the record's place: what a reader gets, whatever the offsets. */
const rowsRead = (dir: string, table: TableLayout, records: string): string[] => {
  const rows = readFileSync(join(dir, table.file)),
    lines = readFileSync(join(dir, records));
  const out: string[] = [];
  for (let at = 0; at < rows.length; at += table.rowWidth) {
    const placeAt = at + table.rowWidth - 8;
    const { offset, length } = readPlace(rows, placeAt);
    out.push(`${rows.toString("latin1", at, placeAt)} ${lines.toString("utf8", offset, offset + length)}`);
  }
  return out;
};

/** Every table of `dir` reads the same rows and records as `parsed`'s, a full parse's. */
function sameRowsAndRecords(t: Test, dir: string, parsed: string): void {
  for (const [table, records] of [
    [RR_BY_START, RR_RECORDS],
    [RR_BY_END, RR_RECORDS],
    [REPEX, REPEX_RECORDS],
  ] as const)
    t.same(rowsRead(dir, table, records), rowsRead(parsed, table, records), `${table.file}: the same rows and records as a full parse`);
}

t.test("a delta over a delta's build links the live records, and a long chain's are copied", async (t) => {
  // the live directory of the first test has the delta's records after the full file's
  const live = join(work, "delta");
  const before = rowsRead(live, RR_BY_START, RR_RECORDS);
  const rrDelta2 = write(
    "rr-delta-2.csv",
    csv([
      [...rrHeader, "DeletedAt"],
      [...direct[2].map((v, i) => (i === RR("RelationshipStatus") ? "INACTIVE" : v)), ""],
    ]),
  );
  const chain = { rr: [rrDelta, rrDelta2], repex: [repexDelta] };
  const linked = dirOf("linked");
  await buildLevel2(input({ rr: rrFull, repex: repexFull }, chain, live), linked);
  t.equal(statSync(join(linked, RR_RECORDS)).ino, statSync(join(live, RR_RECORDS)).ino, "the records are the live file, linked");
  t.same(rowsRead(live, RR_BY_START, RR_RECORDS), before, "the live directory reads what it read before");

  // the reference: the same chain over a full parse (the full files are copies of the originals)
  const parsed = dirOf("parsed-2");
  await buildLevel2(input({ rr: join(work, "copies", "rr-full.csv"), repex: join(work, "copies", "repex-full.csv") }, chain), parsed);
  sameRowsAndRecords(t, linked, parsed);

  // a chain whose records outgrow a quarter of the full file's: the next build copies what it keeps
  const restated = write("rr-restated.csv", csv([[...rrHeader, "DeletedAt"], ...rrRows.map((r) => [...r, ""])]));
  const long = dirOf("long");
  await buildLevel2(input({ rr: rrFull, repex: repexFull }, { rr: [restated], repex: [] }, live), long);
  const copied = dirOf("copied");
  await buildLevel2(input({ rr: rrFull, repex: repexFull }, { rr: [restated, rrDelta2], repex: [] }, long), copied);
  t.not(statSync(join(copied, RR_RECORDS)).ino, statSync(join(long, RR_RECORDS)).ino, "copied, not linked");
  t.ok(statSync(join(copied, RR_RECORDS)).size < statSync(join(long, RR_RECORDS)).size, "without the earlier chain's records");
  const reference = dirOf("parsed-3");
  await buildLevel2(
    input(
      { rr: join(work, "copies", "rr-full.csv"), repex: join(work, "copies", "repex-full.csv") },
      { rr: [restated, rrDelta2], repex: [] },
    ),
    reference,
  );
  t.same(
    rowsRead(copied, RR_BY_START, RR_RECORDS),
    rowsRead(reference, RR_BY_START, RR_RECORDS),
    "and the same rows and records as a full parse",
  );
});

t.test("the live tables holding the start of the chain: only the rest is laid over them, as a full parse", async (t) => {
  // a build of the full files and the first deltas, whose parsed repex rows are then made
  // garbage after their header: the build must not read them
  const copies = { rr: join(work, "copies", "rr-full.csv"), repex: join(work, "copies", "repex-full.csv") };
  const live = dirOf("holding");
  await buildLevel2(input(copies, { rr: [rrDelta], repex: [repexDelta] }), live);
  const repexRows = readFileSync(join(live, REPEX_PARSED));
  repexRows.fill(0xff, repexRows.readUInt32LE(0) + 16);
  writeFileSync(join(live, REPEX_PARSED), repexRows);
  const liveBefore = rowsRead(live, RR_BY_START, RR_RECORDS);

  // a second delta: a key the first deleted back, one changed, one deleted, one new, with a new end node
  const START = RR("StartNode.NodeID"),
    END = RR("EndNode.NodeID"),
    TYPE = RR("RelationshipType");
  const rrDelta3 = write(
    "rr-delta-3.csv",
    csv([
      [...rrHeader, "DeletedAt"],
      [...direct[0], ""],
      [...direct[2].map((v, i) => (i === RR("RelationshipStatus") ? "INACTIVE" : v)), ""],
      [...direct[3], DELETED_AT],
      [...direct[4].map((v, i) => (i === END ? direct[5][START] : i === TYPE ? "IS_ULTIMATELY_CONSOLIDATED_BY" : v)), ""],
    ]),
  );
  const repexDelta3 = write(
    "repex-delta-3.csv",
    csv([
      repexHeader,
      padded(repexRows[0]),
      padded([direct[0][START], "DIRECT_ACCOUNTING_CONSOLIDATION_PARENT", "NON_CONSOLIDATING", DELETED_AT]),
      padded([direct[6][START], "ULTIMATE_ACCOUNTING_CONSOLIDATION_PARENT", "NATURAL_PERSONS"]),
    ]),
  );
  const chain = { rr: [rrDelta, rrDelta3], repex: [repexDelta, repexDelta3] };
  const logged: string[] = [];
  const laid = dirOf("laid");
  const built = await buildLevel2(
    { ...input({ rr: rrFull, repex: repexFull }, chain, live, { rr: [rrDelta], repex: [repexDelta] }), log: (m) => logged.push(m) },
    laid,
  );
  t.match(logged.join("\n"), /Level 2 rr: the live collection's tables hold 1 of its 2 delta\(s\); the rest laid over them/);
  t.match(
    logged.join("\n"),
    /Level 2 repex: the live collection's tables hold repex-full\.csv and 1 delta\(s\); only the rest is laid over them/,
  );
  t.notMatch(logged.join("\n"), /written whole/, "every table laid over the live one's, none written whole");
  t.equal(statSync(join(laid, REPEX_RECORDS)).ino, statSync(join(live, REPEX_RECORDS)).ino, "the live records, linked");

  const parsed = dirOf("parsed-4");
  const reference = await buildLevel2(input(copies, chain), parsed);
  t.same(
    { relationships: built.counts.relationships, exceptions: built.counts.exceptions, skipped: built.counts.skipped },
    { relationships: reference.counts.relationships, exceptions: reference.counts.exceptions, skipped: reference.counts.skipped },
  );
  sameRowsAndRecords(t, laid, parsed);
  for (const file of [CHILD_COUNTS.file, `${CHILD_COUNTS.file}.idx`, `${RR_BY_START.file}.idx`, `${REPEX.file}.idx`])
    t.ok(readFileSync(join(laid, file)).equals(readFileSync(join(parsed, file))), `${file} is the same`);
  t.same(Buffer.from(built.parents.direct), Buffer.from(reference.parents.direct), "the same parents");
  t.same(Buffer.from(built.parents.ultimate), Buffer.from(reference.parents.ultimate));
  t.same(rowsRead(live, RR_BY_START, RR_RECORDS), liveBefore, "the live directory reads what it read before");

  // the live tables holding another start of the chain than the build's: all of it is applied again
  logged.length = 0;
  const other = dirOf("not-laid");
  await buildLevel2({ ...input(copies, chain, live, { rr: [rrDelta3], repex: [repexDelta3] }), log: (m) => logged.push(m) }, other);
  t.notMatch(logged.join("\n"), /the live collection's tables hold/, "not laid over");
  t.same(rowsRead(other, RR_BY_START, RR_RECORDS), rowsRead(parsed, RR_BY_START, RR_RECORDS), "the same rows all the same");
});
