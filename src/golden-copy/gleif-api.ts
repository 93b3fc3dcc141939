// GLEIF's download APIs. The golden copy API says which publication of Level 1 (lei2), the
// relationship records (rr) and the reporting exceptions (repex) is the latest, and where its CSV
// zip lives: GET <api>/golden-copies/publishes/<type>/latest answers
//   {"data": {"publish_date": "2026-09-30 08:00:00", "full_file": {"csv": {"url", "size", "record_count"}}}}
// The mapping API does the same for the ISIN and BIC files: GET <mapping-api>/<isin-lei|bic-lei>/latest
// answers {"data": {"attributes": {"fileName", "downloadLink"}}} (and 406 to Accept: application/json).
// An answer is read as a stream, up to METADATA_MAX_BYTES, within a total deadline: an upstream
// that never stops sending, or trickles, fails the call instead of holding memory or the load.

import { Agent, request } from "undici";
import { SourceError } from "./source.js";
import { DEFAULT_UPSTREAM_LIMITS, METADATA_MAX_BYTES } from "./upstream-limits.js";

export interface PublishedFile {
  url: string;
  size: number | null;
  recordCount: number | null;
}

export interface Publication extends PublishedFile {
  /** as GLEIF writes it, UTC: "2026-09-30 08:00:00" */
  publishDate: string;
  /** the CSV of each delta window the publication announces (delta_files.<window>.csv) */
  deltas: Partial<Record<DeltaWindow, PublishedFile>>;
}

/** GLEIF's delta windows, each with the hours it covers back from its publication. */
export const DELTA_WINDOWS = { IntraDay: 8, LastDay: 24, LastWeek: 7 * 24, LastMonth: 31 * 24 } as const;
export type DeltaWindow = keyof typeof DELTA_WINDOWS;

// A host that drops packets must not hold up an offline first start for long.
const dispatcher = new Agent({ connect: { timeout: 5_000 } });

export type GoldenCopyType = "lei2" | "rr" | "repex";

export async function latestPublication(
  apiBase: string,
  type: GoldenCopyType = "lei2",
  seconds = DEFAULT_UPSTREAM_LIMITS.apiSeconds,
): Promise<Publication> {
  const url = `${apiBase.replace(/\/+$/, "")}/golden-copies/publishes/${type}/latest`;
  return readPublication(await getJson(url, "application/json", seconds), url);
}

export type MappingFile = "isin-lei" | "bic-lei";

/** Where the latest ISIN or BIC mapping file lies. */
export async function latestMappingFile(
  mappingApi: string,
  kind: MappingFile,
  seconds = DEFAULT_UPSTREAM_LIMITS.apiSeconds,
): Promise<{ url: string; fileName: string | null }> {
  const url = `${mappingApi.replace(/\/+$/, "")}/${kind}/latest`;
  const attributes = field(field(await getJson(url, "*/*", seconds), "data"), "attributes");
  const link = field(attributes, "downloadLink");
  if (!isHttpUrl(link)) throw new SourceError(`GLEIF mapping API ${url}: data.attributes.downloadLink is missing`);
  const fileName = field(attributes, "fileName");
  return { url: link, fileName: typeof fileName === "string" ? fileName : null };
}

async function getJson(url: string, accept: string, seconds: number): Promise<unknown> {
  const deadline = AbortSignal.timeout(seconds * 1000);
  const late = (): SourceError => new SourceError(`GLEIF API ${url} did not answer in full within ${seconds} s`);
  let res;
  try {
    res = await request(url, { dispatcher, headers: { accept }, signal: deadline });
  } catch (err) {
    throw deadline.aborted ? late() : new SourceError(`GLEIF API ${url} unreachable: ${(err as Error).message}`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => undefined);
    throw new SourceError(`GLEIF API ${url} answered HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > METADATA_MAX_BYTES) {
        // leaving the loop destroys the body
        throw new SourceError(`GLEIF API ${url} sent more than ${METADATA_MAX_BYTES} bytes, too much for its answer; not read further`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw deadline.aborted ? late() : new SourceError(`GLEIF API ${url} broke off its answer: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(Buffer.concat(chunks, bytes).toString("utf8")) as unknown;
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
  if (!isHttpUrl(url)) throw new SourceError(`GLEIF API ${from}: data.full_file.csv.url is missing`);
  const deltas: Publication["deltas"] = {};
  for (const window of Object.keys(DELTA_WINDOWS) as DeltaWindow[]) {
    // a delta announced without a usable URL is as good as none: the full file is loaded instead
    const delta = field(field(field(data, "delta_files"), window), "csv");
    const deltaUrl = field(delta, "url");
    if (isHttpUrl(deltaUrl)) {
      deltas[window] = { url: deltaUrl, size: count(field(delta, "size")), recordCount: count(field(delta, "record_count")) };
    }
  }
  return { publishDate, url, size: count(field(csv, "size")), recordCount: count(field(csv, "record_count")), deltas };
}

/** "2026-09-30 08:00:00" -> "2026-09-30T08:00:00Z" */
export function isoPublished(publishDate: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)/.exec(publishDate);
  if (!m) return publishDate;
  return `${m[1]}T${m[2].length === 5 ? `${m[2]}:00` : m[2]}Z`;
}

const isHttpUrl = (value: unknown): value is string => typeof value === "string" && /^https?:\/\//i.test(value);

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function count(value: unknown): number | null {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}
