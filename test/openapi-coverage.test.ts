// Every route the server registers is in /openapi.json, as Meilisearch's CI checks its own: the
// routes are read from the wired app (src/app.ts, built), the document from a running server.
// A route registered without its OpenAPI operation fails here. Catch-alls (405s naming the
// allowed methods, the 404 fallback) and refusals (a read-only resource's writes) stay out, and
// those refusals are checked to refuse. Also: the document's own rules, and the reference page.

import t from "tap";
import { ROOT, startServer, tempDir } from "./helpers/server.js";

const dist = (p: string): string => new URL(`dist/src/${p}`, `file://${ROOT}/`).href;
const { buildApp } = (await import(dist("app.js"))) as typeof import("../src/app.js");
const { parseConfig } = (await import(dist("config/cli.js"))) as typeof import("../src/config/cli.js");

type Operation = {
  operationId: string;
  summary: string;
  security: object[];
  responses: Record<string, unknown>;
  parameters: { name: string; in: string }[];
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

const KEY = "coverage-bootstrap-key-0123456789";
const openApiPath = (pattern: string): string => pattern.replace(/:([A-Za-z_]+)/g, "{$1}");
const httpMethod = (method: string): string => (method === "del" ? "delete" : method);

t.test("every registered route is in /openapi.json, with its operationId; catch-alls and refusals stay out", async (t) => {
  const dataDir = tempDir(t);
  const config = parseConfig(["--data-dir", dataDir, "--shards", "1", "--api-key", KEY], {});
  if (config === "help") throw new Error("unexpected --help");
  const app = await buildApp(config, () => {});
  t.teardown(() => app.close());
  const routes = app.server.routes;
  t.ok(routes.length >= 70, `the app registers its routes (${routes.length})`);

  const server = await startServer(t, { args: ["--api-key", KEY] });
  const doc = (await server.json("/openapi.json")) as Document;
  const served = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) served.set(`${method} ${path}`, op);

  const documented = new Set<string>();
  for (const route of routes) {
    const { doc: opDoc, name } = route.options;
    if (opDoc === undefined) {
      t.equal(route.method, "any", `${name} ${route.pattern}: only a catch-all of method any may have no operation`);
      continue;
    }
    if (opDoc === "refusal") continue;
    const method = route.method === "any" ? opDoc.method : route.method;
    const key = `${httpMethod(method ?? "")} ${openApiPath(route.pattern)}`;
    documented.add(key);
    t.equal(served.get(key)?.operationId, name, `${key} is in the document as ${name}`);
  }
  t.same(
    [...served.keys()].filter((k) => !documented.has(k)),
    [],
    "the document has no operation the server does not register",
  );
  const ids = [...served.values()].map((op) => op.operationId);
  t.equal(new Set(ids).size, ids.length, "operationIds are unique");

  // refusals answer every request with an error
  for (const route of routes.filter((r) => r.options.doc === "refusal")) {
    const path = route.pattern.replace(/:[A-Za-z_]+/g, "lei");
    const got = await server.get(path, { method: httpMethod(route.method).toUpperCase(), headers: { "x-typesense-api-key": KEY } });
    t.ok(got.status >= 400 && got.status < 500, `${route.method} ${path} refuses (${got.status})`);
  }
});

t.test("the document: security per area, path parameters, a success and an error answer per operation", async (t) => {
  const server = await startServer(t);
  const got = await server.get("/openapi.json");
  t.equal(got.headers.get("access-control-allow-origin"), "*", "readable by browser clients");
  const doc = got.body as Document;
  t.same(Object.keys(doc.components.securitySchemes).sort(), ["engineKey", "operatorKey", "tenantKey"]);
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const where = `${method} ${path}`;
      t.ok(op.summary, `${where} has a summary`);
      t.ok(
        Object.keys(op.responses).some((s) => s.startsWith("2")),
        `${where} has a 2xx answer`,
      );
      t.ok(
        Object.keys(op.responses).some((s) => s.startsWith("4")),
        `${where} has a 4xx answer`,
      );
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      t.same(
        op.parameters.filter((p) => p.in === "path").map((p) => p.name),
        inPath,
        `${where} declares its path parameters`,
      );
      const scheme = Object.keys(op.security[0] ?? {})[0] ?? "none";
      const expected =
        path.startsWith("/v1/tenants") || path === "/v1/events" || path === "/v1/inbound"
          ? "operatorKey"
          : path.startsWith("/v1/webhooks") || path.startsWith("/v1/suppressions") || path.startsWith("/v1/watchlists")
            ? "tenantKey"
            : path.startsWith("/v1/") ||
                path.startsWith("/reconcile") ||
                [
                  "/mcp",
                  "/openapi.json",
                  "/health",
                  "/health/ready",
                  "/metrics",
                  "/docs",
                  "/docs/{file}",
                  "/license/activate",
                  "/",
                  "/entity/{lei}",
                  "/assets/{file}",
                ].includes(path) ||
                (path === "/license" && method === "get")
              ? "none"
              : "engineKey";
      t.equal(scheme, expected, `${where} is secured by ${expected}`);
    }
  }
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
  t.same(
    [...new Set(refs)].filter((name) => !(name in doc.components.schemas)),
    [],
    `every $ref resolves (${new Set(refs).size} schemas referred to)`,
  );
  const search = doc.paths["/v1/entities"].get;
  t.ok(search.responses["429"], "the rate-limited search documents its 429");
  t.ok(doc.paths["/keys"].post.responses["401"], "a keyed route documents its 401");
});

t.test("the reference page and its assets come from the server, compressed", async (t) => {
  const server = await startServer(t);
  const page = await server.get("/docs");
  t.equal(page.status, 200);
  t.match(page.headers.get("content-type") ?? "", /text\/html/);
  const scripts = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.same(
    scripts.sort(),
    ["/docs/init.js", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"],
    "every asset is the server's own: no CDN",
  );
  for (const asset of scripts) {
    const res = await fetch(`${server.base}${asset}`, { headers: { "accept-encoding": "gzip" } });
    t.equal(res.status, 200, `${asset} is served`);
    t.equal(res.headers.get("content-encoding"), "gzip", `${asset} comes gzipped`);
    t.match(res.headers.get("cache-control") ?? "", /max-age=/, `${asset} may be cached`);
  }
  const init = await server.get("/docs/init.js");
  t.match(init.text, /\/openapi\.json/, "the page renders this server's document");
  const missing = await server.get("/docs/nothing.js");
  t.equal(missing.status, 404);
  t.same(missing.body, { error: "no file nothing.js in the API reference" });
});
