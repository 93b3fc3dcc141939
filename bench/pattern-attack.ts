// Issue 20 item 2, measured: a key holding aliases:upsert with the collection pattern (a+)+b, and
// PUT /aliases/<n a's>. Times each PUT and a /health sent alongside it, on a server of its own.
// Usage: node dist/bench/pattern-attack.js [n ...]   (default 16 20 22 24 40 128)

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../src/main.js", import.meta.url));
const lengths = process.argv.slice(2).map(Number);
const apiKey = `pa-${randomBytes(12).toString("hex")}`;
const dataDir = mkdtempSync(join(tmpdir(), "leidex-pattern-attack-"));
const child = spawn(
  process.execPath,
  [MAIN, "--source", "sample", "--shards", "1", "--port", "0", "--host", "127.0.0.1", "--api-key", apiKey, "--data-dir", dataDir],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const port = await new Promise<number>((resolve) => {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
});
const base = `http://127.0.0.1:${port}`;
const timed = async (f: () => Promise<Response>): Promise<[number, number]> => {
  const t0 = performance.now();
  const r = await f();
  await r.text();
  return [r.status, performance.now() - t0];
};
try {
  const created = await fetch(`${base}/keys`, {
    method: "POST",
    headers: { "x-typesense-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ actions: ["aliases:upsert"], collections: ["(a+)+b"] }),
  });
  const key = ((await created.json()) as { value: string }).value;
  for (const n of lengths.length > 0 ? lengths : [16, 20, 22, 24, 40, 128]) {
    const [[status, putMs], [, healthMs]] = await Promise.all([
      timed(() =>
        fetch(`${base}/aliases/${"a".repeat(n)}`, {
          method: "PUT",
          headers: { "x-typesense-api-key": key, "content-type": "application/json" },
          body: '{"collection_name":"lei"}',
        }),
      ),
      new Promise<[number, number]>((resolve) => setTimeout(() => resolve(timed(() => fetch(`${base}/health`))), 5)),
    ]);
    console.log(`n=${n}: PUT ${status} in ${putMs.toFixed(1)} ms; /health alongside in ${healthMs.toFixed(1)} ms`);
  }
} finally {
  child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
}
