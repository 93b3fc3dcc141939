// Debian's Chromium driven by playwright-core (no browser download at install; .ci/run installs
// the chromium package). Outside CI a machine without it skips the browser tests; in CI
// (CI=true) a missing browser fails them. Screenshots go to test/artifacts/screenshots.

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT, type Teardownable } from "./server.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(ROOT, "test/artifacts/screenshots");

/** Why the browser tests cannot run here, or null when they can (never a reason in CI). */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM) || process.env.CI === "true") return null;
  return `no Chromium at ${CHROMIUM} (apt install chromium; CI installs it)`;
}

export async function launchBrowser(t: Teardownable): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // the closed network: no background calls to Google's hosts, no sandbox as root in CI
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

const AXE_SOURCE = readFileSync(join(createRequire(import.meta.url).resolve("axe-core"), "../axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2.x A and AA rules on the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // evaluated over the DevTools protocol, which the page's Content-Security-Policy does not govern
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${AXE_SOURCE};0`);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
