// A slice's document file (src/engine/doc-store.ts): documents appended in any order are
// finished in the order asked, their places rewritten, the unlisted ones left out, and the file
// is verified against its facts when opened again.

import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { DocStoreReader, DocStoreWriter } from "../../src/engine/doc-store.js";

const docs = ['{"n":"charlie"}', '{"n":"alpha"}', '{"n":"dropped"}', '{"n":"bravo-long-name"}'].map((d) => Buffer.from(d));

t.test("finished in the order asked, places rewritten, unlisted documents left out", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "leidex-docs-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const scratch = join(dir, "scratch.docs");
  const writer = new DocStoreWriter(scratch);
  const starts = new Float64Array(docs.length);
  const lengths = new Uint32Array(docs.length);
  docs.forEach((d, i) => {
    starts[i] = writer.append(d, d.length);
    lengths[i] = d.length;
  });
  const order = Uint32Array.from([1, 3, 0]); // alpha, bravo, charlie; doc 2 is not listed
  const facts = writer.finishInOrder(join(dir, "slice.docs"), order, starts, lengths);

  t.notOk(existsSync(scratch), "the scratch file is gone");
  t.equal(facts.bytes, lengths[0] + lengths[1] + lengths[3], "the body holds the listed documents only");
  t.same([starts[1], starts[3], starts[0]], [0, lengths[1], lengths[1] + lengths[3]], "listed documents lie back to back, in order");

  const reader = DocStoreReader.verified(join(dir, "slice.docs"), facts);
  for (const d of [0, 1, 3]) t.equal(reader.read(starts[d], lengths[d]).toString(), docs[d].toString(), `document ${d} reads back whole`);
  const run = Buffer.alloc(facts.bytes);
  reader.readInto(0, facts.bytes, run, 0);
  t.equal(run.toString(), `${docs[1]}${docs[3]}${docs[0]}`, "one read of a run returns its neighbours together");
  reader.close();

  t.throws(
    () => DocStoreReader.verified(join(dir, "slice.docs"), { ...facts, crc: facts.crc ^ 1 }),
    { message: /does not belong to its segment/ },
    "facts that do not match are refused",
  );
});

t.test("a body read whole, off the thread, in chunks: every document where its place says; none over the limit", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "leidex-docs-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const writer = new DocStoreWriter(join(dir, "scratch.docs"));
  // over 8 MB, so the body takes more than one chunk
  const count = 9000;
  const bodies = Array.from({ length: count }, (_, i) => Buffer.from(JSON.stringify({ i, pad: String(i % 97).repeat(500) })));
  const starts = new Float64Array(count);
  const lengths = new Uint32Array(count);
  bodies.forEach((b, i) => {
    starts[i] = writer.append(b, b.length);
    lengths[i] = b.length;
  });
  const facts = writer.finishInOrder(
    join(dir, "slice.docs"),
    Uint32Array.from({ length: count }, (_, i) => count - 1 - i),
    starts,
    lengths,
  );
  t.ok(facts.bytes > 8 << 20, "the body spans more than one chunk");
  const reader = DocStoreReader.verified(join(dir, "slice.docs"), facts);
  t.teardown(() => reader.close());
  const body = await reader.whole(facts.bytes);
  t.ok(body !== null && body.length === facts.bytes, "read whole at its own size");
  const wrong = bodies.findIndex((b, i) => !body!.subarray(starts[i], starts[i] + lengths[i]).equals(b));
  t.equal(wrong, -1, "every document lies in it where its place says");
  t.equal(await reader.whole(facts.bytes - 1), null, "a body over the limit is not read");
});
