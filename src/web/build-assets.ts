// Builds the search page (src/web/page) into dist/web at install time (npm's prepare): one
// minified script and one stylesheet, named by a hash of their content so that they can be
// cached for good, and index.html pointing at them. Nothing is fetched at run time.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const source = `${root}src/web/page/`;
const out = `${root}dist/web/`;

async function bundle(entry: string): Promise<Uint8Array> {
  const result = await build({
    entryPoints: [source + entry],
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    write: false,
    legalComments: "none",
  });
  return result.outputFiles[0].contents;
}

function hashedName(base: string, ext: string, bytes: Uint8Array): string {
  return `${base}.${createHash("sha256").update(bytes).digest("hex").slice(0, 12)}.${ext}`;
}

const script = await bundle("main.ts");
const style = await bundle("style.css");
const js = hashedName("app", "js", script);
const css = hashedName("app", "css", style);
rmSync(out, { recursive: true, force: true });
mkdirSync(`${out}assets`, { recursive: true });
writeFileSync(`${out}assets/${js}`, script);
writeFileSync(`${out}assets/${css}`, style);
const html = readFileSync(`${source}index.html`, "utf8").replace("{{js}}", `/assets/${js}`).replace("{{css}}", `/assets/${css}`);
writeFileSync(`${out}index.html`, html);
console.log(`search page: dist/web/index.html, assets/${js} (${script.length} B), assets/${css} (${style.length} B)`);
