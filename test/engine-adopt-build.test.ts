// `npm run bench:engine` compares engine builds on one copy of the index: WasmSlice.adopt() with a
// compiled module instantiates that module on the slice's shared memory. The instance must answer
// as the slice's own does, and the module given must be the one used (an unusable one is refused,
// not passed over for the default).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import type { HitSource, SearchAnswer } from "../src/engine/protocol.js";
import { readSample } from "./helpers/fixture.js";
import { builtSlice, dist } from "./helpers/in-process-engine.js";
import { ROOT, tempDir } from "./helpers/server.js";

const { WasmSlice } = (await import(dist("engine/wasm-slice.js"))) as typeof import("../src/engine/wasm-slice.js");

const { header, rows } = readSample();
const dir = tempDir(t, "leidex-adopt-");
const opened = await builtSlice(dir, "s", header, rows);

const NAME = header.indexOf("Entity.LegalName");
const queries = rows.slice(0, 300).flatMap((r) => {
  const name = r[NAME];
  const words = name.split(" ");
  return [name, words.slice(0, 2).join(" "), name.slice(0, Math.max(3, name.length - 2)), name.replace(/[AEIOU]/, "X")];
});

function answer(a: SearchAnswer<HitSource>): string {
  const hits: number[] = [];
  for (let i = 0; i < a.hits.count; i++) hits.push(a.hits.docAt(i), a.hits.score(i));
  return JSON.stringify([a.found, a.plan, hits]);
}

t.test("an instance of a given build on the slice's memory answers as the slice's own", async (t) => {
  const module = new WebAssembly.Module(readFileSync(join(ROOT, "native", "build", "engine.wasm")));
  const other = WasmSlice.adopt(opened.share, module);
  let same = 0;
  for (const q of queries) {
    const query = { q, fields: "all" as const, filters: {}, facets: [], window: 10, typoMask: 0b1111, dropTokens: true };
    const mine = answer(opened.search(query));
    if (mine === answer(other.search(query))) same++;
  }
  t.equal(same, queries.length, `${queries.length} queries, exact and typo'd, answered alike`);
  t.ok(
    queries.some((q) => opened.search({ q, fields: "all", filters: {}, facets: [], window: 10, typoMask: 0, dropTokens: false }).found > 0),
    "the queries find something",
  );
});

t.test("the module given is the one instantiated: one without the engine's exports is refused", async (t) => {
  // (module (memory (import "env" "memory") 1 65536 shared)): imports the memory, exports nothing
  const bare = new WebAssembly.Module(
    Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 2, 18, 1, 3, 101, 110, 118, 6, 109, 101, 109, 111, 114, 121, 2, 3, 1, 128, 128, 4]),
  );
  t.throws(() => WasmSlice.adopt(opened.share, bare));
});
