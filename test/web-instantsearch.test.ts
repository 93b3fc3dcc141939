// The Typesense ecosystem, unchanged, on Leidex: InstantSearch.js with the official
// typesense-instantsearch-adapter runs in Chromium, on a page served from another origin, with a
// scoped search key made by the official typesense client. It renders hits, searches as the
// user types, and a country refinement list filters the hits.

import t from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { Client } from "typesense";
import { browserMissing, launchBrowser, screenshot } from "./helpers/browser.js";
import { ROOT, startServer } from "./helpers/server.js";

const BOOTSTRAP = "instantsearch-bootstrap-key-0123456789";

const missing = browserMissing();
if (missing) t.skip(missing);
else
  t.test("InstantSearch.js + typesense-instantsearch-adapter render hits and a country refinement list", async (t) => {
    const leidex = await startServer(t, { args: ["--api-key", BOOTSTRAP] });

    // a search-only key, and a key scoped from it (an HMAC, never sent to the server beforehand)
    const created = await leidex.get("/keys", {
      method: "POST",
      headers: { "X-TYPESENSE-API-KEY": BOOTSTRAP, "Content-Type": "application/json" },
      body: JSON.stringify({ description: "search page", actions: ["documents:search"], collections: ["*"] }),
    });
    t.equal(created.status, 201, created.text);
    const client = new Client({ nodes: [{ host: "127.0.0.1", port: leidex.port, protocol: "http" }], apiKey: created.body.value });
    const scoped = client.keys().generateScopedSearchKey(created.body.value, { filter_by: "entityStatus:ACTIVE" });

    const bundle = await build({
      entryPoints: [`${ROOT}/test/fixtures/instantsearch/page.ts`],
      bundle: true,
      write: false,
      format: "iife",
      logLevel: "silent",
    });
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>InstantSearch on Leidex</title></head><body>
<div id="searchbox"></div><div id="stats"></div><div id="country"></div><div id="hits"></div>
<script>window.LEIDEX = ${JSON.stringify({ host: "127.0.0.1", port: leidex.port, key: scoped })};</script>
<script src="/page.js"></script></body></html>`;
    const pages = createServer((req, res) => {
      if (req.url === "/page.js") res.writeHead(200, { "Content-Type": "text/javascript" }).end(bundle.outputFiles[0].contents);
      else res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    t.teardown(() => new Promise<void>((resolve) => pages.close(() => resolve())));
    const origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;

    const browser = await launchBrowser(t);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await page.goto(`${origin}/`);

    // a wait that times out names what went wrong in the page
    const explained = (err: Error): never => {
      throw new Error(`${err.message}\nerrors in the page: ${errors.join("\n")}`);
    };
    await page.waitForSelector("#hits .ais-Hits-item").catch(explained);
    t.ok((await page.locator("#hits .ais-Hits-item").count()) > 0, "hits render on the first load");
    await page.locator(".ais-SearchBox-input").fill("bank");
    await page
      .waitForFunction(() => [...document.querySelectorAll("#hits .name")].every((n) => /bank/i.test(n.textContent ?? "")))
      .catch(explained);
    const names = await page.locator("#hits .name").allInnerTexts();
    t.ok(names.length > 0, `hits for "bank": ${names.slice(0, 3).join(", ")}`);
    const statuses = await page.locator("#hits .status").allInnerTexts();
    t.same([...new Set(statuses)], ["ACTIVE"], "the scoped key's filter applies");

    const items = page.locator("#country .ais-RefinementList-item");
    t.ok((await items.count()) > 1, "a country refinement list with several values");
    const value = await items.first().locator(".ais-RefinementList-labelText").innerText();
    const count = Number(await items.first().locator(".ais-RefinementList-count").innerText());
    const direct = await leidex.json(
      `/collections/lei/documents/search?q=bank&query_by=legalName,otherNames&filter_by=country:${value}&x-typesense-api-key=${encodeURIComponent(scoped)}`,
    );
    t.equal(count, direct.found, `the refinement's count for ${value} is the engine's found`);
    await items.first().locator("input").click();
    await page
      .waitForFunction((value) => [...document.querySelectorAll("#hits .country")].every((n) => n.textContent === value), value)
      .catch(explained);
    t.match(await page.locator("#stats").innerText(), new RegExp(`^${count} results?`), "the hits are the refinement's");
    await screenshot(page, "instantsearch-adapter");
    t.same(errors, [], "no errors in the page (CORS included)");
  });
