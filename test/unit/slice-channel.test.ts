// A shard answers a batch in parts once it has worked a while (src/engine/shard.ts): the front's
// channel (src/engine/slice-channel.ts) hands each part on in order, settles the batch after its
// last part, and fails only what is still unanswered. The test plays the worker's end of a real
// MessageChannel.

import { MessageChannel } from "node:worker_threads";
import t from "tap";
import { decodeResponses, encodeResponses, isLastPart } from "../../src/engine/shard-codec.js";
import type { ShardReply } from "../../src/engine/protocol.js";
import { SliceChannel, type ChannelBatch, type ChannelReply } from "../../src/engine/slice-channel.js";

const facetReply = (value: string): ShardReply => ({ kind: "facet", values: [[value, 1]] });
const valuesOf = (bytes: Uint8Array): string[] => decodeResponses(bytes).map((r) => (r.kind === "facet" ? r.values[0][0] : r.kind));

t.test("a part says whether more follow; the flag is not part of the count", async (t) => {
  const more = encodeResponses([facetReply("A"), facetReply("B")], 0, false);
  const last = encodeResponses([facetReply("C")], 0);
  t.notOk(isLastPart(more));
  t.ok(isLastPart(last));
  t.same(valuesOf(more), ["A", "B"]);
  t.same(valuesOf(last), ["C"]);
});

t.test("parts reach their batch in order; the batch settles after the last", async (t) => {
  const { port1, port2 } = new MessageChannel();
  const channel = new SliceChannel(port1);
  t.teardown(() => channel.close("test over"));
  const batches: ChannelBatch[] = [];
  port2.on("message", (batch: ChannelBatch) => {
    batches.push(batch);
    const reply = (r: ChannelReply): void => port2.postMessage(r);
    if (batches.length === 1) {
      reply(encodeResponses([facetReply("1a")], 0, false));
      reply(encodeResponses([facetReply("1b"), facetReply("1c")], 0));
    } else {
      reply(encodeResponses([facetReply("2a")], 0));
    }
  });
  const seen: string[] = [];
  let firstSettledAt = -1;
  const first = channel
    .ask({ gen: 1, payload: new Uint8Array(4) }, (bytes) => seen.push(...valuesOf(bytes)))
    .then(() => {
      firstSettledAt = seen.length;
    });
  const second = channel.ask({ gen: 1, payload: new Uint8Array(4) }, (bytes) => seen.push(...valuesOf(bytes)));
  await Promise.all([first, second]);
  t.same(seen, ["1a", "1b", "1c", "2a"], "every part, in order, to its own batch");
  t.equal(firstSettledAt, 3, "the first batch settled once its last part had come, not before");
});

t.test("an error after a part fails that batch only; the next is answered", async (t) => {
  const { port1, port2 } = new MessageChannel();
  const channel = new SliceChannel(port1);
  t.teardown(() => channel.close("test over"));
  let n = 0;
  port2.on("message", () => {
    if (n++ === 0) {
      port2.postMessage(encodeResponses([facetReply("ok")], 0, false));
      port2.postMessage({ error: "slice 0 could not answer a batch: broken" });
    } else port2.postMessage(encodeResponses([facetReply("next")], 0));
  });
  const parts: string[] = [];
  await t.rejects(
    channel.ask({ gen: 1, payload: new Uint8Array(4) }, (bytes) => parts.push(...valuesOf(bytes))),
    /broken/,
  );
  t.same(parts, ["ok"], "the part before the error was handed on");
  await channel.ask({ gen: 1, payload: new Uint8Array(4) }, (bytes) => parts.push(...valuesOf(bytes)));
  t.same(parts, ["ok", "next"]);
});
