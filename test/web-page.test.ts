// The search page in a real browser (Debian's Chromium through playwright-core) against a real
// server: results as you type, facets, pages with back and forward, the entity page from the
// keyboard, copying an LEI, the empty, 404 and rate-limited states, axe-core's WCAG A/AA rules
// in light and dark, first-load bytes, and screenshots at desktop and phone width.

import t, { type Test } from "tap";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { BAD_CHECK_LEI, withCheckDigits, writeFixture } from "./helpers/fixture.js";
import { axeViolations, browserMissing, launchBrowser, screenshot } from "./helpers/browser.js";
import { startServer, tempDir, type RunningServer } from "./helpers/server.js";

const LINO = { lei: "549300YRNUQ0FK60YT75", name: "Lino Engineering AB" };
const ABSENT = withCheckDigits("LEIDEXABSENT000000");
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

const missing = browserMissing();
if (missing) t.skip(missing);
else {
  let browser: Browser;
  let server: RunningServer;
  let published: string;

  t.before(async () => {
    const fixture = writeFixture(tempDir(t, "leidex-web-"));
    published = fixture.zipPublished;
    server = await startServer(t, { source: fixture.zip });
    browser = await launchBrowser(t);
  });

  /** A page with console errors and page errors collected; what a test expects is filtered by it. */
  async function open(
    t: Test,
    options: Parameters<Browser["newContext"]>[0] = {},
  ): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
    const context = await browser.newContext({ viewport: DESKTOP, ...options });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !/Failed to load resource: the server responded with a status of (404|429)/.test(m.text()))
        errors.push(m.text());
    });
    return { page, context, errors };
  }

  const status = (page: Page): Promise<string> => page.locator("#status").innerText();
  const names = (page: Page): Promise<string[]> => page.locator("a.result-link").allInnerTexts();
  async function settled(page: Page): Promise<void> {
    await page.waitForFunction(() => {
      const s = document.getElementById("status")?.textContent ?? "";
      return s !== "" && s !== "Searching…" && !document.getElementById("results")?.hasAttribute("aria-busy");
    });
  }

  t.test("a typo'd real name finds the entity as you type; the footer shows the data's freshness", async (t) => {
    const { page, errors } = await open(t);
    await page.goto(`${server.base}/`);
    await settled(page);
    t.match(await status(page), /^6,\d{3} entities; showing 1–10\./, "an empty query browses everything");
    await page.locator("#q").pressSequentially("lino enginering", { delay: 20 });
    await page.waitForFunction(() => /enginering/.test(document.getElementById("status")?.textContent ?? ""));
    await settled(page);
    t.ok((await names(page)).slice(0, 3).includes(LINO.name), "the entity is among the first results");
    t.match(page.url(), /\/\?q=lino\+enginering$/, "the URL carries the query");
    const footer = await page.locator("#freshness").innerText();
    t.match(footer, /^6,\d{3} entities from the GLEIF golden copy published \d{1,2} \w+ \d{4}\.$/, footer);
    t.ok(footer.includes(new Date(published).getUTCFullYear().toString()), "the published date is the dataset's");
    t.ok(await page.locator('footer a[href="/docs"]').isVisible(), "the footer links to the API reference");
    t.match(await page.locator("footer").innerText(), /CC0 1\.0/, "the CC0 attribution");
    t.same(errors, [], "no console or page errors (a Content-Security-Policy refusal would be one)");
  });

  t.test("a facet filters: the URL and the counts change, and unticking it undoes it", async (t) => {
    const { page } = await open(t);
    await page.goto(`${server.base}/?q=bank`);
    await settled(page);
    const before = await status(page);
    const countryBox = page.locator('fieldset[data-field="country"] label').first();
    const [label, count] = await countryBox.locator("span").allInnerTexts();
    const code = /\(([A-Z]{2})\)$/.exec(label)![1];
    await countryBox.locator("input").check();
    await page.waitForURL(new RegExp(`country=${code}`));
    await settled(page);
    t.match(await status(page), new RegExp(`^${count} entit(y|ies) match “bank”`), `the count is the facet's: ${count}`);
    t.not(await status(page), before);
    const countries = await page.locator('fieldset[data-field="country"] label .value').allInnerTexts();
    t.same(countries, [label], "the country facet now counts the chosen country only");
    t.ok(await page.locator('fieldset[data-field="country"] input').first().isChecked(), "and shows it ticked");
    for (const card of await page.locator(".card .place").allInnerTexts()) t.ok(card.endsWith(label.replace(/ \(\w+\)$/, "")), card);

    await page.locator('fieldset[data-field="country"] input').first().uncheck();
    await page.waitForURL((url) => !url.search.includes("country="));
    await settled(page);
    t.equal(await status(page), before, "unticked: the first answer again");
    await page.goBack();
    await page.waitForURL(new RegExp(`country=${code}`));
    await settled(page);
    t.match(await status(page), new RegExp(`^${count} entit`), "back: the filtered answer");
  });

  t.test("pages forward and back, the URL and history following", async (t) => {
    const { page } = await open(t);
    await page.goto(`${server.base}/?q=bank`);
    await settled(page);
    const first = await names(page);
    t.equal(first.length, 10);
    await page.locator('nav.pager a[rel="next"]').click();
    await page.waitForURL(/page=2/);
    await settled(page);
    t.match(await status(page), /showing 11–20\./);
    const second = await names(page);
    t.not(second[0], first[0], "another page of results");
    t.match(await page.locator("nav.pager [aria-current]").innerText(), /^Page 2 of \d+$/);
    await page.goBack();
    await page.waitForURL((url) => !url.search.includes("page="));
    await settled(page);
    t.same(await names(page), first, "back: page 1 again");
    await page.goForward();
    await page.waitForURL(/page=2/);
    await settled(page);
    t.same(await names(page), second, "forward: page 2 again");
    await page.reload();
    await settled(page);
    t.same(await names(page), second, "a reload keeps the page");
    t.equal(await page.locator("#q").inputValue(), "bank", "and the query in the box");
  });

  t.test("the keyboard: arrow down from the box through the results, Enter opens the entity page", async (t) => {
    const { page } = await open(t);
    await page.goto(`${server.base}/?q=${encodeURIComponent("lino enginering")}`);
    await settled(page);
    await page.locator("#q").focus();
    await page.keyboard.press("ArrowDown");
    t.equal(await page.evaluate(() => document.activeElement?.className), "result-link", "ArrowDown: the first result");
    const total = await page.locator("a.result-link").count();
    if (total > 1) {
      await page.keyboard.press("ArrowDown");
      t.equal(await page.evaluate(() => document.activeElement?.textContent), (await names(page))[1], "ArrowDown again: the second");
      await page.keyboard.press("ArrowUp");
    }
    const target = await page.evaluate(() => document.activeElement?.getAttribute("href"));
    await page.keyboard.press("Enter");
    await page.waitForURL(`**${target}`);
    await page.waitForSelector("article.entity h1");
    t.equal(await page.evaluate(() => document.activeElement?.tagName), "H1", "focus moves to the entity's name");
    t.equal(target, `/entity/${LINO.lei}`);
    const text = await page.locator("article.entity").innerText();
    t.match(text, LINO.name);
    t.match(text, /Country \(legal address\)\s+Sweden \(SE\)/, "the country spelled out");
    t.match(text, /Check digits valid/, "the check-digit verdict");
    t.equal(
      await page.locator('a[href^="https://search.gleif.org/"]').getAttribute("href"),
      `https://search.gleif.org/#/record/${LINO.lei}`,
    );
    await page.locator("details.json summary").click();
    t.same(JSON.parse(await page.locator("details.json pre").innerText()).lei, LINO.lei, "the JSON view is the API's record");
    await page.goBack();
    await page.waitForSelector("a.result-link");
    t.equal(await page.locator("#q").inputValue(), "lino enginering", "back: the search as it was");
  });

  /** A relationships answer as the API contract gives it, for the mocked family tests. */
  const PARENT = withCheckDigits("LEIDEXPARENT000000");
  const BARE = withCheckDigits("LEIDEXBARE00000000");
  const child = (i: number) => {
    const lei = withCheckDigits(`LEIDEXCHILD${String(i).padStart(7, "0")}`);
    return {
      lei,
      entity: { lei, legalName: `Child ${i} AB` },
      relationship: { startNode: lei, endNode: LINO.lei, type: "IS_DIRECTLY_CONSOLIDATED_BY", status: i === 3 ? "INACTIVE" : "ACTIVE" },
    };
  };
  const FAMILY = {
    lei: LINO.lei,
    entity: null,
    directParent: {
      lei: PARENT,
      entity: { lei: PARENT, legalName: "<img src=x onerror=alert(1)>Parent & Co" },
      relationship: {
        startNode: LINO.lei,
        endNode: PARENT,
        type: "IS_DIRECTLY_CONSOLIDATED_BY",
        status: "ACTIVE",
        accountingStandard: "IFRS",
        periods: [{ type: "RELATIONSHIP_PERIOD", startDate: "2012-06-01T00:00:00Z", endDate: null }],
      },
    },
    ultimateParent: null,
    directParentException: null,
    ultimateParentException: { lei: LINO.lei, category: "ULTIMATE_ACCOUNTING_CONSOLIDATION_PARENT", reasons: ["NATURAL_PERSONS"] },
    fundManagers: [
      { lei: BARE, entity: null, relationship: { startNode: LINO.lei, endNode: BARE, type: "IS_FUND-MANAGED_BY", status: "ACTIVE" } },
    ],
    umbrellaFund: null,
    masterFunds: [],
    headOffice: null,
    children: { direct: 25, ultimate: 0, managedFunds: 0, subFunds: 0, branches: 0, feeders: 0 },
    isins: 3,
  };

  /** Answers the family routes of the page from `answers` (path without /v1/entities/ → status and body). */
  async function mockFamily(page: Page, answer: (path: string, params: URLSearchParams) => { status: number; body: string } | null) {
    await page.route(/\/v1\/entities\/[^/?]+\/(relationships|children|isins)/, (route) => {
      const url = new URL(route.request().url());
      const got = answer(url.pathname.replace("/v1/entities/", ""), url.searchParams);
      if (!got) return route.continue();
      return route.fulfill({ status: got.status, contentType: "application/json", body: got.body });
    });
  }
  const json = (body: unknown, status = 200) => ({ status, body: JSON.stringify(body) });

  t.test("the corporate family: parents as links, an exception's reason, children a page at a time, ISINs", async (t) => {
    const { page, errors } = await open(t);
    const asked: string[] = [];
    await mockFamily(page, (path, params) => {
      asked.push(`${path}?${params}`);
      if (path === `${LINO.lei}/relationships`) return json(FAMILY);
      if (path === `${LINO.lei}/children`) {
        const n = Number(params.get("page"));
        const limit = Number(params.get("limit"));
        const all = Array.from({ length: 25 }, (_, i) => child(i + 1));
        return json({ lei: LINO.lei, type: params.get("type"), found: 25, page: n, limit, results: all.slice((n - 1) * limit, n * limit) });
      }
      if (path === `${LINO.lei}/isins`)
        return json({ lei: LINO.lei, found: 3, page: 1, limit: 10, results: ["SE0000000001", "SE0000000002", "SE0000000003"] });
      if (path === `${BARE}/relationships`)
        return json({
          ...FAMILY,
          lei: BARE,
          directParent: null,
          ultimateParentException: null,
          fundManagers: [],
          isins: 0,
          children: { managedFunds: 1 },
        });
      if (path === `${BARE}/children`)
        return json({
          lei: BARE,
          type: "managed-funds",
          found: 1,
          page: 1,
          limit: 20,
          results: [{ lei: LINO.lei, entity: { lei: LINO.lei, legalName: LINO.name }, relationship: null }],
        });
      return null;
    });
    await page.goto(`${server.base}/entity/${LINO.lei}`);
    const family = page.locator("section.family");
    await family.locator("ul.related-list a").first().waitFor();
    await family.locator("ul.isins code").first().waitFor();
    const text = await family.innerText();
    t.match(text, /Direct parent\s+<img src=x onerror=alert\(1\)>Parent & Co/, "the parent's name, as text");
    t.equal(await page.locator("main img").count(), 0, "no markup from the data");
    t.equal(await family.getByRole("link", { name: "<img src=x onerror=alert(1)>Parent & Co" }).getAttribute("href"), `/entity/${PARENT}`);
    t.match(text, /Relationship active; accounting standard IFRS; since 1 June 2012/, "the relationship's status and accounting standard");
    t.match(text, /Ultimate parent\s+No ultimate parent reported: NATURAL_PERSONS/, "the exception's reason");
    t.match(text, new RegExp(`Fund manager\\s+${BARE} \\(not in the Level 1 data\\)`), "an LEI Level 1 does not hold: the bare LEI");
    t.match(text, /Direct children \(25\)/, "the children counted by kind");
    t.equal(await family.locator("ul.related-list a[href^='/entity/LEIDEXCHILD']").count(), 20, "the first page of children");
    t.match(text, /Showing 20 of 25\./);
    t.match(text, /Child 3 AB.*\n?.*Relationship inactive/, "an inactive relationship is marked");
    t.same(await family.locator("ul.isins code").allInnerTexts(), ["SE0000000001", "SE0000000002", "SE0000000003"], "the ISINs");
    t.match(text, /ISINs \(3\)/);

    await family.getByRole("button", { name: "Show more direct children" }).click();
    await page.waitForFunction(() => document.querySelectorAll("section.family a[href^='/entity/LEIDEXCHILD']").length === 25);
    t.equal(await page.evaluate(() => document.activeElement?.textContent), "Child 21 AB", "focus on the first child loaded");
    t.equal(await family.getByRole("button", { name: "Show more direct children" }).count(), 0, "all shown: no more button");
    t.ok(
      asked.some((a) => /children\?type=direct&page=2&limit=20$/.test(a)),
      "the second page asked for",
    );

    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const violations = await axeViolations(page);
      t.same(violations, [], `axe-core, ${colorScheme}: ${violations.map((v) => v.id).join(", ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await screenshot(page, "entity-family-desktop");

    await family.getByRole("link", { name: BARE }).click();
    await page.waitForURL(`**/entity/${BARE}`);
    await page.locator("section.family ul.related-list a").first().waitFor();
    t.equal(await page.locator("h1").innerText(), `LEI ${BARE}`, "an LEI only Level 2 names has a page");
    t.match(await page.locator("article.entity").innerText(), /not in this dataset's Level 1 records/);
    t.equal(
      await page.locator("section.family").getByRole("link", { name: LINO.name }).getAttribute("href"),
      `/entity/${LINO.lei}`,
      "its fund",
    );
    t.same(errors, []);
  });

  t.test("no family, or a family that cannot be read: the entity page stays whole", async (t) => {
    const cases: [string, { status: number; body: string } | null, RegExp][] = [
      ["the server's own answer", null, /^No relationships reported$/],
      ["a 404", json({ error: "no such LEI" }, 404), /^No relationships reported$/],
      ["an empty body", { status: 200, body: "" }, /^No relationships reported$/],
      ["an empty object", json({}), /^No relationships reported$/],
      [
        "nothing in it",
        json({ ...FAMILY, directParent: null, ultimateParentException: null, fundManagers: [], children: {}, isins: 0 }),
        /^No relationships reported$/,
      ],
      ["a wrong shape", json({ directParent: 7, fundManagers: "x", children: null, isins: "many" }), /^No relationships reported$/],
      ["a 500", json({ error: "boom" }, 500), /^Relationships cannot be shown: boom$/],
    ];
    for (const [name, answer, expected] of cases) {
      const { page, errors } = await open(t);
      if (answer) await mockFamily(page, (path) => (path.endsWith("/relationships") ? answer : null));
      await page.goto(`${server.base}/entity/${LINO.lei}`);
      await page.waitForFunction(() => !/Loading/.test(document.querySelector("section.family")?.textContent ?? "Loading"));
      t.match(await page.locator("section.family > :not(h2)").first().innerText(), expected, name);
      t.match(await page.locator("article.entity h1").innerText(), LINO.name, `${name}: the entity is shown`);
      t.same(
        errors.filter((e) => !/status of 500/.test(e)),
        [],
        `${name}: no page errors`,
      );
    }
  });

  t.test("the bundled sample's real families: a parent followed to its children, a fund to its manager", async (t) => {
    const sample = await startServer(t, { shards: 1 });
    const GITHUB = { lei: "6354003LMZZAKOPXLX69", name: "GITHUB INC" };
    const MICROSOFT = { lei: "INR2EJN1ERAN0W5ZP974", name: "MICROSOFT CORPORATION" };
    const FUND = { lei: "001GPB6A9XPE8XJICC14", name: "Fidelity Advisor Leveraged Company Stock Fund" };
    const MANAGER = "5493001Z012YSB2A0K51";
    const UMBRELLA = "C7J4FOV6ELAVE39B7M82";
    const { page, errors } = await open(t);
    await page.goto(`${sample.base}/entity/${GITHUB.lei}`);
    const family = page.locator("section.family");
    await family.locator("dl a").first().waitFor();
    const text = await family.innerText();
    t.match(text, new RegExp(`Direct parent\\s+${MICROSOFT.name} ${MICROSOFT.lei}\\s+Relationship active`), "the direct parent");
    t.match(text, new RegExp(`Ultimate parent\\s+${MICROSOFT.name}`), "the ultimate parent");
    const parent = family.locator("dl dd").first().getByRole("link", { name: MICROSOFT.name });
    t.equal(await parent.getAttribute("href"), `/entity/${MICROSOFT.lei}`, "the parent is a link to its page");

    await parent.click();
    await page.waitForURL(`**/entity/${MICROSOFT.lei}`);
    await page.waitForFunction((name) => document.querySelector("article.entity h1")?.textContent === name, MICROSOFT.name);
    await page.locator("section.family ul.related-list a").first().waitFor();
    t.match(await family.innerText(), /Direct children \(\d+\)/, "the parent's children counted");
    t.equal(
      await family.locator("ul.related-list").first().getByRole("link", { name: GITHUB.name }).getAttribute("href"),
      `/entity/${GITHUB.lei}`,
      "the child among its direct children",
    );
    await family.getByRole("button", { name: "Show the ultimate children" }).click();
    const ultimate = family.locator("ul.related-list").nth(1);
    await ultimate.locator("a").first().waitFor();
    t.equal(await page.evaluate(() => document.activeElement?.closest("ul") !== null), true, "focus on the first ultimate child");
    t.ok(await ultimate.getByRole("link", { name: GITHUB.name }).count(), "the child among the ultimate children too");
    const violations = await axeViolations(page);
    t.same(violations, [], `axe-core: ${violations.map((v) => v.id).join(", ")}`);
    await screenshot(page, "entity-family-parent");

    await page.goto(`${sample.base}/entity/${FUND.lei}`);
    await family.locator("dl a").first().waitFor();
    const fund = await family.innerText();
    t.match(fund, /Direct parent\s+No direct parent reported: NO_KNOWN_PERSON/, "the reporting exception");
    t.match(fund, new RegExp(`Fund manager\\s+${MANAGER} \\(not in the Level 1 data\\)`), "a fund manager outside Level 1: its bare LEI");
    t.match(fund, new RegExp(`Umbrella fund\\s+${UMBRELLA}`), "the umbrella fund");
    t.match(fund, /ISINs \(\d+\)/, "its ISINs counted");
    // the list may render after its heading: wait for it (a timeout fails the test)
    const isin = family.locator("ul.isins code", { hasText: "US3158052262" });
    await isin.waitFor({ timeout: 10_000 }).catch(() => undefined);
    t.ok(await isin.count(), "and listed");
    await family.getByRole("link", { name: MANAGER }).click();
    await page.waitForURL(`**/entity/${MANAGER}`);
    await page.locator("section.family ul.related-list a").first().waitFor();
    t.equal(await page.locator("h1").innerText(), `LEI ${MANAGER}`, "the manager's page: its bare LEI");
    t.match(await family.innerText(), /Managed funds \(\d+\)/);
    t.ok(await family.getByRole("link", { name: FUND.name }).count(), "the fund among its managed funds");
    t.same(errors, []);
  });

  t.test("the entity page names the legal form from the ELF list, and 8888 by the record's text", async (t) => {
    const sample = await startServer(t, { shards: 1 });
    const { page, errors } = await open(t);
    const formOf = async (lei: string): Promise<string> => {
      await page.goto(`${sample.base}/entity/${lei}`);
      await page.waitForSelector("article.entity");
      return page.locator("dl.fields dt:text-is('Legal form') + dd").innerText();
    };
    t.equal(await formOf("391200VK8A8FKEOTCN77"), "Gesellschaft mit beschränkter Haftung (GmbH) (ISO 20275 ELF code 2HBR)");
    t.match(await formOf("2138002Z2N3GIS5ZUN17"), /^Trust \(ELF code 8888: no code applies, the form is given as text in the record\)$/);
    t.match(await formOf("254900GSNKM4F03KHS08"), /^Société anonyme \(SA\) /, "a Belgian record with a French legal name: the French row");
    t.same(errors, []);
  });

  t.test("an LEI failing ISO 17442 says so on its page", async (t) => {
    const { page } = await open(t);
    const response = await page.goto(`${server.base}/entity/${BAD_CHECK_LEI}`);
    t.equal(response?.status(), 200);
    await page.waitForSelector("article.entity");
    t.match(await page.locator(".verdict").innerText(), /Check digits fail ISO 17442/);
  });

  t.test("copying an LEI puts it on the clipboard", async (t) => {
    const { page } = await open(t, { permissions: ["clipboard-read", "clipboard-write"] });
    await page.goto(`${server.base}/?q=${encodeURIComponent(LINO.name)}`);
    await settled(page);
    const button = page.locator(".card").first().locator("button.copy");
    t.equal(await button.getAttribute("aria-label"), `Copy LEI ${LINO.lei}`);
    await button.click();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), LINO.lei);
    t.equal(await button.innerText(), "Copied");
  });

  t.test("a query that matches nothing says so, with the query", async (t) => {
    const { page } = await open(t);
    await page.goto(`${server.base}/`);
    await settled(page);
    await page.locator("#q").fill("qqxzvjkw");
    await page.waitForFunction(() => /qqxzvjkw/.test(document.getElementById("status")?.textContent ?? ""));
    t.equal(await status(page), "No entity matches “qqxzvjkw”.");
    t.equal(await page.locator(".card").count(), 0);
    t.match(await page.locator(".results .empty").innerText(), /spelling/);
    t.equal(await page.locator("nav.pager a").count(), 0, "no pages to walk");
  });

  t.test("an absent LEI and a string that is no LEI: a 404 page that says so", async (t) => {
    const { page } = await open(t);
    const absent = await page.goto(`${server.base}/entity/${ABSENT}`);
    t.equal(absent?.status(), 404);
    await page.waitForSelector("h1");
    t.equal(await page.locator("h1").innerText(), `No entity with LEI ${ABSENT}`);
    t.ok(await page.locator('a[href="/"]').last().isVisible(), "a way back to the search");
    for (const [path, shown] of [
      ["not-an-lei", "NOT-AN-LEI"],
      ["%3Cb%3Ebold%3C%2Fb%3E", "<B>BOLD</B>"],
      ["%E0%A4%A", "%E0%A4%A"],
    ]) {
      const garbage = await page.goto(`${server.base}/entity/${path}`);
      t.equal(garbage?.status(), 404, path);
      await page.waitForSelector("h1");
      t.equal(await page.locator("h1").innerText(), `“${shown}” is not an LEI in this dataset`, `${path}: said as text`);
      t.equal(await page.locator("main b").count(), 0, "no markup from the path");
    }
  });

  t.test("axe-core: no WCAG A or AA violation on any page, light or dark", async (t) => {
    for (const colorScheme of ["light", "dark"] as const) {
      const { page } = await open(t, { colorScheme });
      const states: [string, () => Promise<unknown>][] = [
        ["results", () => page.goto(`${server.base}/?q=bank`).then(() => settled(page))],
        ["filtered", () => page.goto(`${server.base}/?q=bank&status=ACTIVE`).then(() => settled(page))],
        ["empty", () => page.goto(`${server.base}/?q=qqxzvjkw`).then(() => settled(page))],
        ["entity", () => page.goto(`${server.base}/entity/${LINO.lei}`).then(() => page.waitForSelector("article.entity"))],
        ["entity 404", () => page.goto(`${server.base}/entity/${ABSENT}`).then(() => page.waitForSelector("h1"))],
      ];
      for (const [name, reach] of states) {
        await reach();
        const violations = await axeViolations(page);
        t.same(
          violations,
          [],
          `${colorScheme}, ${name}: ${violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(" ")).join("; ")})`).join(", ")}`,
        );
      }
    }
  });

  t.test("screenshots at desktop and phone width; nothing wider than a phone", async (t) => {
    for (const [width, viewport, colorScheme] of [
      ["desktop", DESKTOP, "light"],
      ["phone", PHONE, "dark"],
    ] as const) {
      const { page } = await open(t, { viewport, colorScheme });
      await page.goto(`${server.base}/?q=bank`);
      await settled(page);
      await screenshot(page, `search-${width}`);
      t.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        `${width}: no sideways scrolling on the search`,
      );
      await page.goto(`${server.base}/entity/${LINO.lei}`);
      await page.waitForSelector("article.entity");
      await screenshot(page, `entity-${width}`);
      t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${width}: nor on an entity`);
      await page.goto(`${server.base}/?q=qqxzvjkw`);
      await settled(page);
      await screenshot(page, `empty-${width}`);
    }
  });

  t.test("first load: at most 100 KB on the wire, assets gzipped and cached for good", async (t) => {
    const { page } = await open(t);
    const loads: { url: string; type: string; bytes: number; encoding: string | undefined; cache: string | undefined }[] = [];
    page.on("requestfinished", async (request) => {
      const response = await request.response();
      const sizes = await request.sizes();
      const headers = response ? await response.allHeaders() : {};
      loads.push({
        url: request.url(),
        type: request.resourceType(),
        bytes: sizes.responseBodySize + sizes.responseHeadersSize,
        encoding: headers["content-encoding"],
        cache: headers["cache-control"],
      });
    });
    await page.goto(`${server.base}/`);
    await settled(page);
    await page.waitForFunction(() => (document.getElementById("freshness")?.textContent ?? "") !== "");
    await page.waitForTimeout(200);
    const total = loads.reduce((sum, l) => sum + l.bytes, 0);
    t.comment(
      `first load: ${loads.length} requests, ${total} bytes on the wire (${loads.map((l) => `${new URL(l.url).pathname} ${l.bytes}`).join(", ")})`,
    );
    t.ok(total <= 100 * 1024, `first load ${total} bytes ≤ 100 KB`);
    t.ok(
      loads.every((l) => l.url.startsWith(server.base)),
      "nothing from another origin",
    );
    const assets = loads.filter((l) => l.type === "script" || l.type === "stylesheet");
    t.equal(assets.length, 2, "one script, one stylesheet");
    for (const asset of assets) {
      t.match(asset.url, /\/assets\/app\.[0-9a-f]{12}\.(js|css)$/, "named by its content's hash");
      t.equal(asset.encoding, "gzip", `${asset.url} gzipped`);
      t.equal(asset.cache, "public, max-age=31536000, immutable");
    }
    const shell = loads.find((l) => l.type === "document")!;
    t.equal(shell.encoding, "gzip", "the page gzipped");
    t.equal(shell.cache, "no-cache", "the page revalidated, so a new build shows at once");
    const unknown = await server.get("/assets/app.000000000000.js");
    t.equal(unknown.status, 404, "an unknown asset is a 404");
  });

  t.test("the server says 429: the page says to slow down and stops asking until the wait is over", async (t) => {
    // 4 requests a minute: the first load spends 2 (search, stats), two typed queries the rest
    const limited = await startServer(t, { rateLimit: 4, rateWindow: 60 });
    const { page } = await open(t);
    await page.goto(`${limited.base}/`);
    await settled(page);
    let asked = 0;
    page.on("request", (r) => {
      if (r.url().includes("/v1/entities")) asked++;
    });
    for (const q of ["alpha", "beta", "gamma"]) {
      await page.locator("#q").fill(q);
      await page.waitForFunction(
        (q) =>
          (document.getElementById("status")?.textContent ?? "").includes(q) ||
          /Too many/.test(document.getElementById("status")?.textContent ?? ""),
        q,
      );
      if (/Too many/.test(await status(page))) break;
    }
    t.match(await status(page), /^Too many requests from your address\. Please slow down: searching resumes in \d+ s\.$/);
    t.equal(await page.locator("#results[aria-busy]").count(), 0, "no busy state left spinning");
    const askedAtRefusal = asked;
    await page.locator("#q").fill("delta");
    await page.waitForTimeout(1000);
    t.equal(asked, askedAtRefusal, "typing during the wait sends nothing");
    t.match(await status(page), /^Too many requests/, "and the page still says why");
  });
}
