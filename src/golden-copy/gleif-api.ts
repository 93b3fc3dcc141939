// GLEIF's golden copy API: which Level 1 (lei2) publication is the latest, and where its CSV zip
// lives. GET <api>/golden-copies/publishes/lei2/latest answers
//   {"data": {"publish_date": "2026-09-30 08:00:00", "full_file": {"csv": {"url", "size", "record_count"}}}}

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

export async function latestPublication(apiBase: string): Promise<Publication> {
  const url = `${apiBase.replace(/\/+$/, "")}/golden-copies/publishes/lei2/latest`;
  let res;
  try {
    res = await request(url, { dispatcher, headers: { accept: "application/json" }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  } catch (err) {
    throw new SourceError(`GLEIF API ${url} unreachable: ${(err as Error).message}`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new SourceError(`GLEIF API ${url} answered HTTP ${res.statusCode}`);
  }
  let body: unknown;
  try {
    body = await res.body.json();
  } catch (err) {
    throw new SourceError(`GLEIF API ${url} sent invalid JSON: ${(err as Error).message}`);
  }
  return readPublication(body, url);
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
