// Records files a delta's Level 2 build writes (os/json-lines.ts): the kept part of the live
// collection's file linked or copied, new lines after it; and a file left at the path by a load
// killed midway, which may be a link of the live file, is never written through. Lines read back
// with read-ahead (the change feed's walk of every exception record) are the lines, whatever the
// order of the reads, and stay what they were after later reads.

import { linkSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { JsonLines, JsonLinesReader } from "../src/os/json-lines.js";
import { tempDir } from "./helpers/server.js";

const work = tempDir(t, "leidex-json-lines-");
const full = Array.from({ length: 20 }, (_, i) => `{"a":${i % 10}}\n`).join("");

t.test("kept lines linked while what follows them is small, copied once it is not", async (t) => {
  const live = join(work, "live.jsonl");
  writeFileSync(live, full + '{"delta":1}\n');
  const next = new JsonLines(join(work, "next.jsonl"), { from: live, bytes: full.length });
  const place = next.append('{"delta":2}')!;
  next.finish();
  t.equal(statSync(join(work, "next.jsonl")).ino, statSync(live).ino, "linked: one file");
  const reader = new JsonLinesReader(join(work, "next.jsonl"));
  t.equal(reader.read(place.offset, place.length)!.toString(), '{"delta":2}', "the new line at its place");
  t.equal(reader.read(0, 7)!.toString(), '{"a":0}', "the kept lines where they were");
  reader.close();

  const long = join(work, "long.jsonl");
  writeFileSync(long, full + "x".repeat(full.length) + "\n");
  const copied = new JsonLines(join(work, "copied.jsonl"), { from: long, bytes: full.length });
  copied.append('{"delta":3}');
  copied.finish();
  t.not(statSync(join(work, "copied.jsonl")).ino, statSync(long).ino, "copied: a file of its own");
  t.equal(readFileSync(join(work, "copied.jsonl"), "utf8"), full + '{"delta":3}\n', "the kept part and the new line only");
});

t.test("a file left at the path that links the live one is replaced, not written through", async (t) => {
  for (const keep of [true, false]) {
    const live = join(work, `live-${keep}.jsonl`);
    // the earlier lines outgrow a quarter: a keep copies, and a copy onto a link would truncate the live file
    const liveText = full + "x".repeat(full.length) + "\n";
    writeFileSync(live, liveText);
    const path = join(work, `left-${keep}.jsonl`);
    linkSync(live, path);
    const lines = new JsonLines(path, keep ? { from: live, bytes: full.length } : undefined);
    lines.append('{"new":1}');
    lines.finish();
    t.equal(readFileSync(live, "utf8"), liveText, `${keep ? "kept" : "new"} file: the live file is as it was`);
    t.not(statSync(path).ino, statSync(live).ino);
  }
});

// some 30,000 lines of varied length: several read-ahead windows
const path = join(work, "ahead.jsonl");
const writer = new JsonLines(path);
const places: { offset: number; length: number; text: string }[] = [];
for (let i = 0; i < 30_000; i++) {
  const text = JSON.stringify({ i, pad: "y".repeat((i * 7919) % 97) });
  places.push({ ...writer.append(text)!, text });
}
writer.finish();

t.test("lines read ahead are the lines, in file order and jumping about", async (t) => {
  let seed = 7;
  const random = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
  const walks: [string, number[]][] = [
    ["in file order", places.map((_, i) => i)],
    ["jumping about", places.map(() => random(places.length))],
    // in order with jumps to the end and back, as a table over a file with a delta's lines appended
    ["in order with jumps to the end", places.map((_, i) => (i % 500 === 499 ? places.length - 1 - (i % 7) : i))],
  ];
  for (const [name, order] of walks) {
    const reader = new JsonLinesReader(path, true);
    // a line is valid until the next read: a window given up lends its buffer to the next
    const wrong = order.filter((i) => reader.read(places[i].offset, places[i].length)?.toString() !== places[i].text);
    // a walk that jumps about may read each line on its own; the others go a window at a time
    if (name !== "jumping about") t.ok(reader.fileReads < order.length / 8, `${name}: ${reader.fileReads} reads of the file`);
    reader.close();
    t.equal(wrong.length, 0, `${name}: every line as written (wrong: ${wrong.slice(0, 3).join(", ")})`);
  }
});

t.test("a walk through parts of the file at once, each in file order, reads each part a window at a time", async (t) => {
  // the body of the file, and after it the lines a delta appended, both walked in order at once
  // (a table in LEI order over a delta-built collection's records); a stray jump besides
  const body = places.length - 5_000;
  const order: number[] = [];
  for (let i = 0, j = body; i < body; i++) {
    order.push(i);
    if (i % 5 === 4 && j < places.length) order.push(j++);
    if (i === 12_345) order.push(17);
  }
  const reader = new JsonLinesReader(path, true);
  const wrong = order.filter((i) => reader.read(places[i].offset, places[i].length)?.toString() !== places[i].text);
  const windows = Math.ceil((places.at(-1)!.offset + places.at(-1)!.length) / (256 * 1024));
  t.equal(wrong.length, 0, "every line as written");
  t.ok(reader.fileReads <= windows + 6, `${reader.fileReads} reads of the file for ${order.length} lines (${windows} windows of the file)`);
  reader.close();
});
