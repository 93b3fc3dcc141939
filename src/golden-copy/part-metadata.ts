// Where a GLEIF load's Level 2 parts are: the latest rr and repex publications (golden copy API)
// and ISIN and BIC mapping files (mapping API), asked all at once, each within the API deadline.
// A call that fails or hangs past its deadline fails that part only: the load goes on without it.

import { basename } from "node:path";
import type { Level2Files } from "../level2/layout.js";
import { isoPublished, latestMappingFile, latestPublication, type Publication } from "./gleif-api.js";
import type { Announced } from "./load.js";
import { SOURCE_PARTS, type SourcePart } from "./source-parts.js";

export interface PartsPlan {
  /** the URL of each part whose metadata answered; null for the others */
  files: Level2Files;
  /** what each part that answered is: its publication (rr, repex) or file name (isin, bic) */
  fetched: Partial<Record<SourcePart, string>>;
  /** the parts whose metadata call failed, and why */
  failed: Partial<Record<SourcePart, string>>;
  /** the row counts GLEIF announces for rr and repex */
  expectedRows: { rr: number | null; repex: number | null };
  /** what the APIs announced of each file */
  announced: Partial<Record<SourcePart, Announced>>;
  /** the rr and repex publications that answered, their deltas included */
  publications: Partial<Record<"rr" | "repex", Publication>>;
  /** one line for the log */
  summary: string;
}

export async function fetchPartsMetadata(source: { api: string; mappingApi: string }, seconds: number): Promise<PartsPlan> {
  const [rr, repex, isin, bic] = await Promise.allSettled([
    latestPublication(source.api, "rr", seconds),
    latestPublication(source.api, "repex", seconds),
    latestMappingFile(source.mappingApi, "isin-lei", seconds),
    latestMappingFile(source.mappingApi, "bic-lei", seconds),
  ]);
  const plan: PartsPlan = {
    files: { rr: null, repex: null, isin: null, bic: null },
    fetched: {},
    failed: {},
    expectedRows: { rr: null, repex: null },
    announced: {},
    publications: {},
    summary: "",
  };
  const lines: string[] = [];
  for (const [part, answer] of [
    ["rr", rr],
    ["repex", repex],
  ] as const) {
    if (answer.status === "rejected") continue;
    const p = answer.value;
    plan.publications[part] = p;
    plan.files[part] = p.url;
    plan.fetched[part] = isoPublished(p.publishDate);
    plan.expectedRows[part] = p.recordCount;
    plan.announced[part] = { name: null, size: p.size };
    lines.push(`${part === "rr" ? "relationships" : "exceptions"} ${p.publishDate} (${p.recordCount ?? "?"} records)`);
  }
  for (const [part, answer] of [
    ["isin", isin],
    ["bic", bic],
  ] as const) {
    if (answer.status === "rejected") continue;
    const m = answer.value;
    plan.files[part] = m.url;
    plan.fetched[part] = m.fileName ?? safeBasename(m.url);
    plan.announced[part] = { name: m.fileName, size: null };
    lines.push(`${part === "isin" ? "ISIN" : "BIC"} map ${m.fileName ?? m.url}`);
  }
  const answers = { rr, repex, isin, bic };
  for (const part of SOURCE_PARTS) {
    const answer = answers[part];
    if (answer.status === "rejected") {
      plan.failed[part] = (answer.reason as Error).message;
      lines.push(`${part} cannot be fetched: ${plan.failed[part]}`);
    }
  }
  plan.summary = lines.join(", ");
  return plan;
}

function safeBasename(url: string): string {
  try {
    return basename(new URL(url).pathname);
  } catch {
    return url;
  }
}
