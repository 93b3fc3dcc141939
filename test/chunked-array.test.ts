// The builder's append-only arrays: values appended over chunk boundaries read back as one array
// in order, after the values of an array given before them (a delta's rows after the full file's).

import t from "tap";
import { ChunkedArray } from "../src/engine/chunked-array.js";

t.test("over chunk boundaries, after an array given", async (t) => {
  const before = Float64Array.from({ length: 70_001 }, (_, i) => i + 0.5);
  const a = new ChunkedArray((n) => new Float64Array(n));
  const pushed: number[] = [];
  for (let i = 0; i < 65_536 * 2 + 3; i++) {
    a.push(-i);
    pushed.push(-i);
  }
  t.equal(a.get(65_536 + 1), -65_537, "a value of the second chunk");
  const got = a.toArray(before);
  const want = [...before, ...pushed];
  t.equal(got.length, want.length);
  let differ = -1;
  for (let i = 0; i < want.length && differ < 0; i++) if (got[i] !== want[i]) differ = i;
  t.equal(differ, -1, "every value in order");

  const alone = new ChunkedArray((n) => new Uint8Array(n));
  alone.push(3);
  t.same([...alone.toArray()], [3], "with nothing before");
  const empty = new ChunkedArray((n) => new Uint8Array(n));
  t.same([...empty.toArray(Uint8Array.from([1, 2]))], [1, 2], "nothing pushed: the array before");
});
