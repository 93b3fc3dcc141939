// Merging the slices' export pages into one stream in LEI order (src/engine/lei-order-merge.ts).

import t from "tap";
import { mergeByLei, type ExportPage } from "../../src/engine/lei-order-merge.js";

const line = (lei: string, pad = 0): string => `{"lei":"${lei}","legalName":"${"x".repeat(pad)}"}\n`;
const lei = (n: number): string => `LEIDEX${String(n).padStart(12, "0")}00`;

/** Slices as lists of pages, each page a list of LEI numbers. */
function pagesOf(slices: number[][][], pad = 0): (slice: number, from: number) => Promise<ExportPage> {
  return async (slice, from) => {
    const pages = slices[slice];
    const lines = Buffer.from((pages[from] ?? []).map((n) => line(lei(n), pad)).join(""));
    return { lines, next: from + 1 < pages.length ? from + 1 : null };
  };
}

async function merged(slices: number[][][], pad = 0): Promise<string[]> {
  const chunks: Buffer[] = [];
  await mergeByLei(slices.length, pagesOf(slices, pad), async (chunk) => {
    chunks.push(Buffer.from(chunk));
    return true;
  });
  return Buffer.concat(chunks)
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { lei: string }).lei);
}

t.test("interleaved slices over several pages come out in LEI order, each line once", async (t) => {
  const slices = [
    [
      [1, 4, 9],
      [12, 30],
    ],
    [[2, 3], [], [10, 11, 40]],
    [[5, 6, 7, 8, 13]],
  ];
  t.same(await merged(slices), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 30, 40].map(lei));
});

t.test("empty slices, and lines longer than a chunk", async (t) => {
  t.same(await merged([[[]], [[]]]), []);
  t.same(await merged([[[2]], [[]], [[1, 3]]], 70_000), [1, 2, 3].map(lei), "70 KB lines, over the 64 KiB chunk");
});

t.test("many lines span many chunks; a sink answering false stops the merge", async (t) => {
  const slices = [[Array.from({ length: 3000 }, (_, i) => 2 * i)], [Array.from({ length: 3000 }, (_, i) => 2 * i + 1)]];
  const out = await merged(slices);
  t.equal(out.length, 6000);
  t.same(out.slice(0, 4), [0, 1, 2, 3].map(lei));
  let calls = 0;
  await mergeByLei(2, pagesOf(slices), async () => ++calls < 2);
  t.equal(calls, 2, "no chunk after the sink said stop");
});
