// The keys a delta's change feed looks up (changes/detect.ts keysInOrder): each overlay's LEIs,
// each once, in byte order; merged without a sort when every list comes in order, as an
// overlay's do, and sorted when one does not.

import t from "tap";
import { keysInOrder } from "../src/changes/detect.js";

const lei = (n: number): string => `5299${String(n).padStart(14, "0")}00`;

t.test("lists in order: merged, each key once", async (t) => {
  const a = [1, 3, 5, 7, 9].map(lei);
  const b = [2, 3, 4, 9, 10, 11].map(lei);
  t.same(keysInOrder([a, b]), [1, 2, 3, 4, 5, 7, 9, 10, 11].map(lei));
  t.same(keysInOrder([a, [], b, [0, 11].map(lei)]), [0, 1, 2, 3, 4, 5, 7, 9, 10, 11].map(lei));
  t.same(keysInOrder([a, []]), a);
  t.same(keysInOrder([[], b]), b);
  t.same(keysInOrder([]), []);
});

t.test("a list out of order, or with a key twice, is sorted and holds each key once", async (t) => {
  t.same(keysInOrder([[5, 1, 3].map(lei), [3, 2].map(lei)]), [1, 2, 3, 5].map(lei));
  t.same(keysInOrder([[1, 1, 2].map(lei), [2].map(lei)]), [1, 2].map(lei));
});

t.test("exception keys (an LEI and a category code byte) come in byte order", async (t) => {
  const keys = [2, 1].flatMap((n) => ["\x02", "\x01"].map((code) => lei(n) + code));
  t.same(keysInOrder([keys]), [lei(1) + "\x01", lei(1) + "\x02", lei(2) + "\x01", lei(2) + "\x02"]);
});
