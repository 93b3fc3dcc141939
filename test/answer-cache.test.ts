// The answer cache keeps bytes in a ring and finds them through a set-associative index: what it
// returns must be exactly what was stored under that key, or nothing, however full the ring has
// wrapped, however keys collide, and whatever their bytes.

import t from "tap";
import { AnswerCache } from "../src/lei/answer-cache.js";
import { seededRandom } from "./helpers/fixture.js";

const answer = (key: string, size: number): Buffer => {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (key.charCodeAt(i % key.length) + i) & 0xff;
  return b;
};

t.test("a stored answer comes back byte for byte, as a copy", async (t) => {
  const cache = new AnswerCache(1 << 20);
  const a = answer("one", 3000);
  cache.set("one", a);
  const got = cache.get("one");
  t.same(got, a);
  got![0] ^= 0xff; // the caller's copy: changing it changes nothing in the cache
  t.same(cache.get("one"), a);
  t.equal(cache.get("two"), null, "an unknown key is a miss");
  t.equal(cache.get("on"), null, "a prefix of a key is a miss");
  t.equal(cache.get("one "), null, "a longer key is a miss");
});

t.test("peek answers the stored bytes in place, also where the second chance moves them", async (t) => {
  const cache = new AnswerCache(64 * 1024);
  const hot = answer("hot", 500);
  cache.set("hot", hot);
  const first = cache.peek("hot");
  t.same(first, hot);
  first![0] ^= 0xff; // a view: the cache's own bytes (no caller may write them; this test checks it is not a copy)
  t.not(cache.get("hot")![0], hot[0], "peek is a view into the ring, get a copy");
  first![0] ^= 0xff;
  for (let i = 0; i < 300; i++) {
    cache.set(`cold ${i}`, answer(`cold ${i}`, 700));
    if (i % 10 === 0) t.same(cache.peek("hot"), hot, `hot after ${i} others`);
  }
  t.equal(cache.peek("cold 0"), null);
  t.equal(cache.peek("nope"), null);
});

t.test("the same key stored again answers with the newer answer", async (t) => {
  const cache = new AnswerCache(1 << 20);
  cache.set("k", answer("old", 100));
  cache.set("k", answer("new", 120));
  t.same(cache.get("k"), answer("new", 120));
});

t.test("keys are compared by all their bytes, in any script", async (t) => {
  const cache = new AnswerCache(1 << 20);
  const keys = ['1|s|{"q":"ＪＦＥ"}', '1|s|{"q":"JFE"}', '1|s|{"q":"Москва"}', '1|s|{"q":"東京"}', '2|s|{"q":"JFE"}'];
  keys.forEach((k, i) => cache.set(k, answer(k, 50 + i)));
  keys.forEach((k, i) => t.same(cache.get(k), answer(k, 50 + i), k));
});

t.test("once the ring wraps, the oldest answers are gone and the newest are intact", async (t) => {
  const cache = new AnswerCache(64 * 1024);
  for (let i = 0; i < 200; i++) cache.set(`key ${i}`, answer(`key ${i}`, 1000));
  t.equal(cache.get("key 0"), null, "the first answer was overwritten");
  for (let i = 150; i < 200; i++) t.same(cache.get(`key ${i}`), answer(`key ${i}`, 1000), `key ${i}`);
});

t.test("an answer asked for often survives the ring wrapping (second chance)", async (t) => {
  const cache = new AnswerCache(64 * 1024);
  cache.set("hot", answer("hot", 500));
  for (let i = 0; i < 1000; i++) {
    cache.set(`cold ${i}`, answer(`cold ${i}`, 700));
    if (i % 20 === 0) t.same(cache.get("hot"), answer("hot", 500), `hot after ${i} others`);
  }
  t.same(cache.get("hot"), answer("hot", 500));
  t.equal(cache.get("cold 0"), null);
});

t.test("a hot answer also survives when the ring, not the index, runs out first", async (t) => {
  const cache = new AnswerCache(64 * 1024); // 64 index slots, but room for 14 answers of 4 KB
  cache.set("hot", answer("hot", 4000));
  for (let i = 0; i < 300; i++) {
    cache.set(`cold ${i}`, answer(`cold ${i}`, 4000));
    if (i % 4 === 0) t.same(cache.get("hot"), answer("hot", 4000), `hot after ${i} others`);
  }
  t.equal(cache.get("cold 0"), null);
});

t.test("a ring of several chunks: no answer straddles two, and wrapping stays exact", async (t) => {
  const cache = new AnswerCache(64 * 1024, 16 * 1024); // four chunks of 16 KB
  const sizes = [1500, 900, 1999, 700, 1300];
  for (let i = 0; i < 400; i++) {
    cache.set(`k ${i}`, answer(`k ${i}`, sizes[i % sizes.length]));
    // the latest answers always come back whole, whichever chunk they landed in
    for (let j = Math.max(0, i - 20); j <= i; j++)
      t.same(cache.get(`k ${j}`), answer(`k ${j}`, sizes[j % sizes.length]), `k ${j} after ${i}`);
  }
  t.equal(cache.get("k 0"), null, "the oldest are gone once the four chunks wrapped");
});

t.test("answers too big for the ring are not kept, and break nothing", async (t) => {
  const cache = new AnswerCache(64 * 1024);
  cache.set("small", answer("small", 100));
  cache.set("big", answer("big", 60 * 1024));
  t.equal(cache.get("big"), null);
  t.same(cache.get("small"), answer("small", 100));
  cache.set("long key", answer("x", 10));
  const longKey = "q".repeat(20_000);
  cache.set(longKey, answer("y", 10));
  t.equal(cache.get(longKey), null, "a key too long to keep is a miss");
  t.same(cache.get("long key"), answer("x", 10));
});

t.test("random traffic: every hit is the answer stored last under its key", async (t) => {
  const random = seededRandom(7);
  const cache = new AnswerCache(256 * 1024);
  const truth = new Map<string, Buffer>();
  let hits = 0,
    misses = 0,
    wrong = 0;
  for (let i = 0; i < 20_000; i++) {
    const key = `g|s|${Math.floor(random() * 200)}`;
    if (random() < 0.5) {
      const a = answer(`${key}#${i}`, 1 + Math.floor(random() * 4000));
      cache.set(key, a);
      truth.set(key, a);
    } else {
      const got = cache.get(key);
      if (got === null) misses++;
      else if (got.equals(truth.get(key) ?? Buffer.alloc(0))) hits++;
      else wrong++;
    }
  }
  t.equal(wrong, 0, "no hit ever returned another key's or an older answer");
  t.ok(hits > 1000, `many hits (${hits})`);
  t.ok(misses > 1000, `and misses once the ring wrapped (${misses})`);
});
