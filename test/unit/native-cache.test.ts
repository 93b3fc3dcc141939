// Issue 44: native code the server derives at run time (the adapted uWebSockets.js addon) is
// kept in a cache directory, and a cached file is used only when nobody else could have changed
// it and its hashes match: a copy changed, a hash file changed, an original that changed, or a
// copy someone else may write is derived again; a cache directory others may write is refused.

import t from "tap";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cachedDerivative, nativeCacheDir } from "../../src/os/native-cache.js";
import { tempDir } from "../helpers/server.js";

const reversed = (b: Buffer): Buffer => Buffer.from(b).reverse();

t.test("the cache directory: LEIDEX_CACHE_DIR, else the XDG cache, else ~/.cache", async (t) => {
  t.equal(nativeCacheDir({ LEIDEX_CACHE_DIR: "/var/lib/leidex/cache", XDG_CACHE_HOME: "/x" }), "/var/lib/leidex/cache");
  t.equal(nativeCacheDir({ XDG_CACHE_HOME: "/x" }), "/x/leidex");
  t.match(nativeCacheDir({}), /\/\.cache\/leidex$/);
});

t.test("a copy is written once, then used while it and its original are as recorded", async (t) => {
  const top = tempDir(t);
  const original = join(top, "addon.node");
  writeFileSync(original, "original bytes");
  const dir = join(top, "data", "cache");
  let derived = 0;
  const derive = (b: Buffer): Buffer => {
    derived++;
    return reversed(b);
  };
  const path = cachedDerivative("copy.node", original, derive, dir);
  t.equal(path, join(dir, "copy.node"));
  t.equal(readFileSync(path, "utf8"), "setyb lanigiro");
  t.same(readdirSync(dir).sort(), ["copy.node", "copy.node.sha256"]);
  t.equal(cachedDerivative("copy.node", original, derive, dir), path);
  t.equal(derived, 1, "the second call used the cached copy");

  writeFileSync(path, "tampered");
  cachedDerivative("copy.node", original, derive, dir);
  t.equal(derived, 2, "a changed copy is derived again");
  t.equal(readFileSync(path, "utf8"), "setyb lanigiro");

  writeFileSync(`${path}.sha256`, "0 0\n");
  cachedDerivative("copy.node", original, derive, dir);
  t.equal(derived, 3, "a changed hash file: derived again");

  writeFileSync(original, "a new original");
  cachedDerivative("copy.node", original, derive, dir);
  t.equal(derived, 4, "a changed original: derived again");
  t.equal(readFileSync(path, "utf8"), "lanigiro wen a");

  chmodSync(path, 0o666);
  cachedDerivative("copy.node", original, derive, dir);
  t.equal(derived, 5, "a copy others may write is not used");
  t.equal(readFileSync(path, "utf8"), "lanigiro wen a");
});

t.test("a cache directory others may write is refused", async (t) => {
  const top = tempDir(t);
  const original = join(top, "addon.node");
  writeFileSync(original, "original bytes");
  const dir = join(top, "shared");
  mkdirSync(dir, { mode: 0o777 });
  chmodSync(dir, 0o777);
  t.throws(
    () => cachedDerivative("copy.node", original, reversed, dir),
    /cache directory .*shared is not a directory that only this user can write/,
  );
  t.same(readdirSync(dir), [], "nothing written there");
});
