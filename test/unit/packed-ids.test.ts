// Doc and term ids packed in 3 bytes (src/engine/packed-ids.ts): what the engine reads back, an
// unaligned u32 at 3i with its top byte masked off, must be each id, the last one included; ids
// that could reach 2^24 stay 4 bytes.

import t from "tap";
import { idBytes, idCount, packIds } from "../../src/engine/packed-ids.js";

const IDS = [0, 1, 255, 256, 65_535, 65_536, 0xabcdef, 2 ** 24 - 1, 3_430_000, 7];

t.test("packed in place, each id reads back as the engine reads it", async (t) => {
  const packed = packIds(Uint32Array.from(IDS), 2 ** 24);
  t.ok(packed instanceof Uint8Array);
  t.equal(idBytes(packed), 3);
  t.equal(packed.length, IDS.length * 3 + 1, "one byte more than the entries, for the last one's u32 read");
  t.equal(idCount(packed), IDS.length);
  const view = new DataView(packed.buffer, packed.byteOffset);
  IDS.forEach((id, i) => t.equal(view.getUint32(i * 3, true) & 0xffffff, id, `entry ${i} as a masked u32`));
});

t.test("ids that could reach 2^24 are kept as 4 bytes", async (t) => {
  const ids = Uint32Array.from([...IDS, 2 ** 24]);
  const kept = packIds(ids, 2 ** 24 + 1);
  t.equal(kept, ids);
  t.equal(idBytes(kept), 4);
  t.equal(idCount(kept), IDS.length + 1);
  t.equal(kept[IDS.length], 2 ** 24);
});

t.test("no ids pack to the one spare byte", async (t) => {
  const packed = packIds(new Uint32Array(0), 10);
  t.equal(packed.length, 1);
  t.equal(idCount(packed), 0);
});
