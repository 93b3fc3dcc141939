// GLEIF's download APIs. The golden copy API says which publication of Level 1 (lei2), the
// relationship records (rr) and the reporting exceptions (repex) is the latest, and where its CSV
// zip lives: GET <api>/golden-copies/publishes/<type>/latest answers
//   {"data": {"publish_date": "2026-09-30 08:00:00", "full_file": {"csv": {"url", "size", "record_count"}}}}
// The mapping API does the same for the ISIN and BIC files: GET <mapping-api>/<isin-lei|bic-lei>/latest
// answers {"data": {"attributes": {"fileName", "downloadLink"}}} (and 406 to Accept: application/json).

import { Agent, request } from "undici";
import { SourceError } from "./source.js";

export interface Publication {
  /** as GLEIF writes it, UTC: "2026-09-30 08:00:00" */
  publishDate: string;
  url: string;
  size: number | null;
  recordCount: number | null;
}

const TIMEOUT_MS = 15_000;
// A host that drops packets must not hold up an offline first start for long.
const dispatcher = new Agent({ connect: { timeout: 5_000 } });

export type PublishedFile = "lei2" | "rr" | "repex";

export async function latestPublication(apiBase: string, type: PublishedFile = "lei2"): Promise<Publication> {
  const url = `${apiBase.replace(/\/+$/, "")}/golden-copies/publishes/${type}/latest`;
  return readPublication(await getJson(url, "application/json"), url);
}

export type MappingFile = "isin-lei" | "bic-lei";

/** Where the latest ISIN or BIC mapping file lies. */
export async function latestMappingFile(mappingApi: string, kind: MappingFile): Promise<{ url: string; fileName: string | null }> {
  const url = `${mappingApi.replace(/\/+$/, "")}/${kind}/latest`;
  const attributes = field(field(await getJson(url, "*/*"), "data"), "attributes");
  const link = field(attributes, "downloadLink");
  if (typeof link !== "string" || !/^https?:\/\//i.test(link))
    throw new SourceError(`GLEIF mapping API ${url}: data.attributes.downloadLink is missing`);
  const fileName = field(attributes, "fileName");
  return { url: link, fileName: typeof fileName === "string" ? fileName : null };
}

async function getJson(url: string, accept: string): Promise<unknown> {
  let res;
  try {
    res = await request(url, { dispatcher, headers: { accept }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  } catch (err) {
    throw new SourceError(`GLEIF API ${url} unreachable: ${(err as Error).message}`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new SourceError(`GLEIF API ${url} answered HTTP ${res.statusCode}`);
  }
  try {
    return await res.body.json();
  } catch (err) {
    throw new SourceError(`GLEIF API ${url} sent invalid JSON: ${(err as Error).message}`);
  }
}

function readPublication(body: unknown, from: string): Publication {
  const data = field(body, "data");
  const publishDate = field(data, "publish_date");
  const csv = field(field(data, "full_file"), "csv");
  const url = field(csv, "url");
  if (typeof publishDate !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(publishDate)) {
    throw new SourceError(`GLEIF API ${from}: data.publish_date is missing or not a date`);
  }
  if (typeof url !== "string" || !/^https?:\/\//i.test(url)) throw new SourceError(`GLEIF API ${from}: data.full_file.csv.url is missing`);
  return { publishDate, url, size: count(field(csv, "size")), recordCount: count(field(csv, "record_count")) };
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function count(value: unknown): number | null {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}
