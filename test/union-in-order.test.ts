// The LEIs a delta's change feed compares: the live overlay's and the new one's, each once, in
// order (golden-copy/ingest.ts unionInOrder), merged without a sort when both come in order.

import t from "tap";
import { unionInOrder } from "../src/golden-copy/ingest.js";

const lei = (n: number): string => `5299${String(n).padStart(14, "0")}00`;

t.test("two lists in order: merged, each LEI once", async (t) => {
  const a = [1, 3, 5, 7, 9].map(lei);
  const b = [2, 3, 4, 9, 10, 11].map(lei);
  t.same(unionInOrder(a, b), [1, 2, 3, 4, 5, 7, 9, 10, 11].map(lei));
  t.same(unionInOrder(a, []), a);
  t.same(unionInOrder([], b), b);
});

t.test("a list out of order is sorted, and still holds each LEI once", async (t) => {
  t.same(unionInOrder([5, 1, 3].map(lei), [3, 2].map(lei)), [1, 2, 3, 5].map(lei));
  t.same(unionInOrder([1, 1, 2].map(lei), [2].map(lei)), [1, 2].map(lei));
});
