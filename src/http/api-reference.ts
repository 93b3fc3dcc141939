// The API's own description: /openapi.json, generated from every route registered before it
// (src/http/openapi.ts), and /docs, a reference page rendered by Swagger UI from the
// swagger-ui-dist package (served from node_modules, compressed once; nothing from a CDN).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { openApiDocument } from "./openapi.js";
import type { JsonSchema } from "./route.js";
import type { HttpServer } from "./server.js";
import { staticAsset, type StaticAsset } from "./static-asset.js";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Leidex API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#reference", deepLinking: true, defaultModelsExpandDepth: 0 });\n`;

/** Swagger UI's files, read when first asked for. */
function swaggerUiAssets(): Map<string, StaticAsset> {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return new Map([
    ["swagger-ui.css", staticAsset(readFileSync(join(dir, "swagger-ui.css")), "text/css; charset=utf-8")],
    ["swagger-ui-bundle.js", staticAsset(readFileSync(join(dir, "swagger-ui-bundle.js")), "text/javascript; charset=utf-8")],
    ["init.js", staticAsset(INIT, "text/javascript; charset=utf-8")],
  ]);
}

/**
 * Register last but the fallback: the document covers the routes registered before. Returns
 * what /openapi.json serves, as an object. A front thread, which registers only some routes
 * itself, serves the main thread's document as it is given (`given`).
 */
export function registerApiReference(server: HttpServer, schemas: Record<string, JsonSchema>, given: string | null = null): () => object {
  const describe = (): object => (given === null ? openApiDocument(server.routes, schemas) : (JSON.parse(given) as object));
  let document: string | null = given;
  server.route(
    "get",
    "/openapi.json",
    {
      name: "openapi",
      area: "public",
      cors: true,
      rateLimited: true,
      doc: { summary: "This OpenAPI document", responses: { 200: { description: "OpenAPI 3.1", schema: { type: "object" } } } },
    },
    (_req, reply) => {
      document ??= JSON.stringify(describe());
      reply.json(200, document);
    },
  );

  const page = staticAsset(PAGE, "text/html; charset=utf-8");
  server.route(
    "get",
    "/docs",
    {
      name: "api-reference",
      area: "ops",
      doc: {
        summary: "The API reference page (HTML)",
        responses: { 200: { description: "The page", contentType: "text/html", schema: { type: "string" } } },
      },
    },
    (_req, reply) => reply.send(200, page.body, page.type, page.gzipped),
  );

  let assets: Map<string, StaticAsset> | null = null;
  server.route(
    "get",
    "/docs/:file",
    {
      name: "api-reference-asset",
      area: "ops",
      doc: {
        summary: "The reference page's scripts and styles",
        params: [{ name: "file", description: "swagger-ui.css, swagger-ui-bundle.js or init.js" }],
        responses: {
          200: { description: "The file", contentType: "application/octet-stream", schema: { type: "string" } },
          404: { description: "No such file" },
        },
      },
    },
    (req, reply) => {
      assets ??= swaggerUiAssets();
      const file = assets.get(req.params[0]);
      if (!file) return reply.error(404, `no file ${req.params[0]} in the API reference`);
      reply.header("Cache-Control", "public, max-age=86400").send(200, file.body, file.type, file.gzipped);
    },
  );
  return describe;
}
