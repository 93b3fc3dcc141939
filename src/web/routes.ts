// The search page for people: / and /entity/{lei} serve one HTML shell (the page picks its view
// from the path), /assets/* the script and stylesheet built into dist/web at install
// (build-assets.ts). Everything comes from memory, gzipped once; assets are named by their
// content's hash, so they are cached for a year, and the shell is revalidated every time.

import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { NotReadyError } from "../engine/collection.js";
import { staticAsset, type StaticAsset } from "../http/static-asset.js";
import type { HttpServer, Reply } from "../http/server.js";

const BUILT = fileURLToPath(new URL("../../web/", import.meta.url));
const HTML = "text/html; charset=utf-8";
const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };
/** The page talks to this origin only and is never framed. */
const SECURITY_HEADERS: [string, string][] = [
  [
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  ],
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
];

interface BuiltPage {
  shell: StaticAsset;
  assets: Map<string, StaticAsset>;
}

function loadBuiltPage(): BuiltPage | null {
  if (!existsSync(`${BUILT}index.html`)) return null;
  const assets = new Map<string, StaticAsset>();
  for (const file of readdirSync(`${BUILT}assets`)) {
    const type = TYPES[file.slice(file.lastIndexOf(".") + 1)];
    if (type) assets.set(file, staticAsset(readFileSync(`${BUILT}assets/${file}`), type));
  }
  return { shell: staticAsset(readFileSync(`${BUILT}index.html`), HTML), assets };
}

const htmlResponse = { description: "The page (HTML)", contentType: "text/html", schema: { type: "string" } };

/** `knows`: whether the dataset holds the LEI, in Level 1 or only in Level 2 (a parent outside Level 1 has a page too). */
export function registerWebPage(server: HttpServer, knows: (lei: string) => boolean): void {
  const page = loadBuiltPage();
  const sendShell = (reply: Reply, status: number): void => {
    if (!page) return reply.error(503, "the search page was not built: run npm run build");
    for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
    reply.header("Cache-Control", "no-cache").send(status, page.shell.body, page.shell.type, page.shell.gzipped);
  };

  server.route(
    "get",
    "/",
    { name: "search-page", area: "public", doc: { summary: "The search page for people (HTML)", responses: { 200: htmlResponse } } },
    (_req, reply) => sendShell(reply, 200),
  );

  server.route(
    "get",
    "/entity/:lei",
    {
      name: "entity-page",
      area: "public",
      // it looks the LEI up (404 when absent): limited like the lookup it stands for
      rateLimited: true,
      doc: {
        summary: "One entity's page for people (HTML)",
        description: "404 when neither Level 1 nor Level 2 holds the LEI; the page then says so.",
        params: [{ name: "lei", description: "The LEI (case-insensitive)" }],
        responses: { 200: htmlResponse, 404: { ...htmlResponse, description: "No such entity: the page says so" } },
      },
    },
    (req, reply) => {
      let found = true;
      try {
        found = knows(req.params[0]);
      } catch (err) {
        if (!(err instanceof NotReadyError)) throw err; // still loading: the page says so when it asks
      }
      sendShell(reply, found ? 200 : 404);
    },
  );

  server.route(
    "get",
    "/assets/:file",
    {
      name: "search-page-asset",
      area: "public",
      doc: {
        summary: "The search page's script and stylesheet",
        description: "Named by a hash of their content, so cached for a year.",
        params: [{ name: "file", description: "A file name from the page, e.g. app.<hash>.js" }],
        responses: {
          200: { description: "The file", contentType: "application/octet-stream", schema: { type: "string" } },
          404: { description: "No such file" },
        },
      },
    },
    (req, reply) => {
      const file = page?.assets.get(req.params[0]);
      if (!file) return reply.error(404, `no asset ${req.params[0]}`);
      reply.header("X-Content-Type-Options", "nosniff");
      reply.header("Cache-Control", "public, max-age=31536000, immutable").send(200, file.body, file.type, file.gzipped);
    },
  );
}
