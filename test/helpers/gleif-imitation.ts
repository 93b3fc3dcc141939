// An imitation of GLEIF's download APIs on 127.0.0.1, over real HTTP (node:http), in the shapes
// ../shared/data/gleif/level2/api-v2.md records:
//   GET <api>/golden-copies/publishes?page[size]=N     -> {"data": [publish, ...]}, newest first
//   GET <api>/golden-copies/publishes/latest           -> {"data": {"lei2", "rr", "repex"}} (+ x-gleif-publish-date)
//   GET <api>/golden-copies/publishes/<type>/latest    -> {"data": the per-publish object of lei2, rr or repex:
//        full_file {csv, json, xml} and delta_files {IntraDay, LastDay, LastWeek, LastMonth}, each a
//        descriptor {url, size, size_human_readable, record_count, type, format, delta_type, cdf_version}}
//   GET <api>/golden-copies/publishes/<type>/latest.csv -> 302 to the file's storage URL
//   GET /storage/golden-copy-files/YYYY/MM/DD/<id>/<name> -> the zip (a different numeric id per type)
//   GET <mapping>/<isin-lei|bic-lei>/latest            -> {"data": {"type", "id": <uuid>, "attributes":
//        {"fileName", "downloadLink": "<mapping>/<kind>/<uuid>/download"}}}; 406 to Accept: application/json
//   GET <mapping>/<kind>?page[size]=N                  -> {"data": [the same, newest first], "meta"}
//   GET <mapping>/<kind>/<uuid>/download, <kind>/latest/download -> the zip (`isin-lei-<stamp>.zip`
//        holding `lei-isin-<stamp>.csv`; `LEI-BIC-<date>.zip` holding `lei-bic-<date>T000000.csv`)
// Tests set the current publication, make the API or a file misbehave (errors, answers that never
// end or trickle, files that run past their announced size), count requests, and take the whole
// service down and up again on the same port. Also builds golden copies (zip of one CSV in the
// golden-copy column layout) from the bundled sample's header.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { csvLine, readSample, zipSingle } from "./fixture.js";

// ---------------------------------------------------------------- Level 2 files

/** One of the four Level 2 files as served: its zip's name, bytes and data rows. */
export interface Level2File {
  name: string;
  zip: Buffer;
  rows: number;
}

export type Level2Part = "rr" | "repex" | "isin" | "bic";

export interface Level2Publication {
  rr: Level2File;
  repex: Level2File;
  isin: Level2File;
  bic: Level2File;
}

const SAMPLE_LEVEL2 = new URL("../../data/sample/level2/", import.meta.url);

/** The bundled sample's Level 2 file of `part`, as text. */
export function sampleLevel2Text(part: Level2Part): string {
  const file = { rr: "rr.csv", repex: "repex.csv", isin: "isin-lei.csv", bic: "bic-lei.csv" }[part];
  return readFileSync(new URL(file, SAMPLE_LEVEL2), "utf8");
}

/**
 * A Level 2 file zipped as GLEIF names it: golden copies `<stamp>-gleif-goldencopy-rr-golden-copy.csv.zip`;
 * mapping files with the word order reversed inside, as GLEIF's are: `isin-lei-20260930T080011.zip`
 * holds `lei-isin-20260930T080011.csv`, `LEI-BIC-20260930.zip` holds `lei-bic-20260930T000000.csv`.
 */
export function level2File(part: Level2Part, stamp: string, csv: string, zip?: Buffer): Level2File {
  const rows = csv.split("\n").filter((l) => l !== "").length - 1;
  const date = stamp.slice(0, 8);
  const [name, entry] =
    part === "rr" || part === "repex"
      ? [`${stamp}-gleif-goldencopy-${part}-golden-copy.csv.zip`, `${stamp}-gleif-goldencopy-${part}-golden-copy.csv`]
      : part === "isin"
        ? [`isin-lei-${date}T${stamp.slice(9, 13)}11.zip`, `lei-isin-${date}T${stamp.slice(9, 13)}11.csv`]
        : [`LEI-BIC-${date}.zip`, `lei-bic-${date}T000000.csv`];
  return { name, zip: zip ?? zipSingle(entry, Buffer.from(csv, "utf8")), rows };
}

/** The bundled sample's four Level 2 files, as the publication `stamp` ("20260930-0800"). */
export function sampleLevel2(stamp = "20260930-0800", change: Partial<Record<Level2Part, string>> = {}): Level2Publication {
  const file = (part: Level2Part): Level2File => level2File(part, stamp, change[part] ?? sampleLevel2Text(part));
  return { rr: file("rr"), repex: file("repex"), isin: file("isin"), bic: file("bic") };
}

// ---------------------------------------------------------------- golden copies

export interface GoldenCopy {
  /** as GLEIF's API writes it, UTC: "2026-09-30 08:00:00" */
  publishDate: string;
  /** as /v1/stats reports it: "2026-09-30T08:00:00Z" */
  published: string;
  /** "20260930-0800" */
  stamp: string;
  /** the file name: "20260930-0800-gleif-goldencopy-lei2-golden-copy.csv.zip" */
  name: string;
  /** the collection a load of it is called: "lei_20260930-0800" */
  collection: string;
  /** the zip as served */
  zip: Buffer;
  /** data rows of the CSV inside (what an honest record_count says) */
  rows: number;
}

/** A golden-copy CSV: header line then one line per row, every field quoted, LF line ends. */
export function csvText(header: string[], rows: string[][]): string {
  return [header, ...rows].map(csvLine).join("\n") + "\n";
}

/** Zips `csv` (or takes `zip` as the bytes to serve, for broken files) as the publication of `publishDate`. */
export function goldenCopy(publishDate: string, content: { csv: string; rows: number } | { zip: Buffer; rows: number }): GoldenCopy {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):00$/.exec(publishDate);
  if (!m) throw new Error(`publish date ${publishDate} is not "YYYY-MM-DD HH:MM:00"`);
  const stamp = `${m[1]}${m[2]}${m[3]}-${m[4]}${m[5]}`;
  const entry = `${stamp}-gleif-goldencopy-lei2-golden-copy.csv`;
  const zip = "zip" in content ? content.zip : zipSingle(entry, Buffer.from(content.csv, "utf8"));
  return {
    publishDate,
    published: `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00Z`,
    stamp,
    name: `${entry}.zip`,
    collection: `lei_${stamp}`,
    zip,
    rows: content.rows,
  };
}

/** The bundled sample's rows (plus `extra` rows) as the publication of `publishDate`. */
export function sampleGoldenCopy(publishDate: string, extra: string[][] = [], take?: number): GoldenCopy {
  const { header, rows } = readSample();
  const all = [...(take === undefined ? rows : rows.slice(0, take)), ...extra];
  return goldenCopy(publishDate, { csv: csvText(header, all), rows: all.length });
}

/**
 * A single-entry zip deflated at level 0: the deflate stream is made of stored blocks, so the
 * CSV's bytes appear verbatim in the zip and can be altered after the CRC-32 was computed
 * without making the stream undecodable.
 */
export function zipVerbatim(name: string, data: Buffer): Buffer {
  return zipSingle(name, data, 0);
}

/**
 * `pub`'s CSV in a zipVerbatim whose bytes `from` (found exactly once) are replaced by `to` (same
 * length) after the CRC-32 was taken: the zip opens and inflates fine, only its checksum tells.
 */
export function withAlteredBytes(publishDate: string, csv: string, rows: number, from: string, to: string): GoldenCopy {
  const pub = goldenCopy(publishDate, { csv, rows });
  const zip = zipVerbatim(pub.name.replace(/\.zip$/, ""), Buffer.from(csv, "utf8"));
  const a = Buffer.from(from, "utf8");
  const b = Buffer.from(to, "utf8");
  if (a.length !== b.length) throw new Error("the replacement must keep the length");
  const at = zip.indexOf(a);
  if (at < 0 || zip.indexOf(a, at + 1) >= 0) throw new Error(`"${from}" is not in the zip exactly once`);
  b.copy(zip, at);
  return { ...pub, zip };
}

// ---------------------------------------------------------------- the imitation

export type ApiMode =
  | "ok"
  /** HTTP 500 with an error page */
  | "error-500"
  /** HTTP 503, as while GLEIF is being deployed */
  | "unavailable-503"
  /** 200 with a body that is not JSON */
  | "invalid-json"
  /** 200 with JSON that lacks data.full_file.csv.url */
  | "no-url";

export type FileMode =
  | "ok"
  /** the API names <api>/golden-copies/publishes/lei2/latest.csv, which answers 302 to the storage URL */
  | "redirect"
  /** the file URL answers 404 */
  | "not-found"
  /** announces the whole Content-Length, sends part of it, then destroys the socket */
  | "cut"
  /** the API announces the zip's size; the file sends the zip, then more bytes for ever (no Content-Length) */
  | "oversize"
  /** announces the whole Content-Length, then sends one byte every 200 ms */
  | "trickle";

/** An API answer that misbehaves over time rather than at once. */
export type SlowMode =
  /** 200, then JSON that never ends, as fast as the client takes it */
  | "endless"
  /** 200, then the real answer one byte every 200 ms */
  | "trickle";

export interface PublishOptions {
  fileMode?: FileMode;
  /** record_count to announce instead of the publication's real row count (null: leave it out) */
  recordCount?: number | null;
  /** Level 1 deltas served with the publication (goldenDelta); the others are announced, and their URLs answer 404 */
  deltas?: Partial<Record<DeltaName, GoldenDelta>>;
  /** rr and repex deltas served with it (level2Delta) */
  level2Deltas?: Partial<Record<"rr" | "repex", Partial<Record<DeltaName, GoldenDelta>>>>;
}

export type DeltaName = "IntraDay" | "LastDay" | "LastWeek" | "LastMonth";

/** A Level 1 delta file as served: its zip and data rows. */
export interface GoldenDelta {
  zip: Buffer;
  rows: number;
}

/**
 * A Level 1 delta of the publication `publishDate`: `rows` (whole records, the sample's header)
 * zipped as GLEIF names it, `<stamp>-gleif-goldencopy-lei2-<intra-day|last-day|…>.csv`. `zip`
 * replaces the bytes served, for broken files.
 */
export function goldenDelta(publishDate: string, window: DeltaName, rows: string[][], zip?: Buffer): GoldenDelta {
  return deltaFile("lei2", publishDate, window, readSample().header, rows, zip);
}

/** An rr or repex delta of the publication `publishDate`: `rows` under `header` (a delta's ends with `DeletedAt`). */
export function level2Delta(part: "rr" | "repex", publishDate: string, window: DeltaName, header: string[], rows: string[][]): GoldenDelta {
  return deltaFile(part, publishDate, window, header, rows);
}

function deltaFile(
  type: GoldenType,
  publishDate: string,
  window: DeltaName,
  header: string[],
  rows: string[][],
  zip?: Buffer,
): GoldenDelta {
  const stamp = goldenCopy(publishDate, { zip: Buffer.alloc(0), rows: 0 }).stamp;
  const entry = `${stamp}-gleif-goldencopy-${type}-${DELTAS[window]}.csv`;
  return { zip: zip ?? zipSingle(entry, Buffer.from(csvText(header, rows), "utf8")), rows: rows.length };
}

/** The parts the golden copy API publishes, and GLEIF's CDF version of each. */
const GOLDEN_TYPES = { lei2: "LEI_3.1", rr: "RR_2.1", repex: "REPEX_2.1" } as const;
type GoldenType = keyof typeof GOLDEN_TYPES;
const DELTAS = { IntraDay: "intra-day", LastDay: "last-day", LastWeek: "last-week", LastMonth: "last-month" } as const;
const MAPPING_KINDS = { "isin-lei": "isin", "bic-lei": "bic" } as const;
type MappingKind = keyof typeof MAPPING_KINDS;

/** A file as the APIs announce it. */
interface Served {
  name: string;
  zip: Buffer;
  rows: number;
}

/** One publication of the golden copy API: lei2 with the rr and repex of the same publish. */
interface Publish {
  publishDate: string;
  stamp: string;
  parts: Record<GoldenType, Served>;
  opts: PublishOptions;
}

/** One file of the mapping API's list. */
interface MappingEntry {
  id: string;
  file: Served;
}

const humanSize = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** A uuid made from the file (name and bytes): two different files never share one. */
function uuidOf(file: Served): string {
  const h = createHash("sha256").update(file.name).update(file.zip).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** GLEIF's storage folder id: a number, different for each file of a publish. */
function storageIdOf(type: GoldenType, stamp: string): number {
  const n = parseInt(createHash("sha256").update(stamp).digest("hex").slice(0, 6), 16) % 90_000;
  return 1_200_000 + n * 3 + { lei2: 0, rr: 1, repex: 2 }[type];
}

export class GleifImitation {
  apiMode: ApiMode = "ok";
  /** the next n API requests answer 503 whatever apiMode says */
  failNextApi = 0;
  /** API requests answered (any mode) */
  apiRequests = 0;
  /** requests for files (storage, latest.csv, mapping downloads), by file name */
  readonly fileRequests = new Map<string, number>();
  private current: Publish | null = null;
  /** every publish, newest first */
  private readonly history: Publish[] = [];
  /** the Level 2 files served beside the current publication: the bundled sample's unless published otherwise */
  private level2: Level2Publication = sampleLevel2();
  /** the mapping API's files, newest first */
  private readonly mappings: Record<MappingKind, MappingEntry[]> = { "isin-lei": [], "bic-lei": [] };
  /** a Level 2 part whose API answers 503 (the rest keeps working) */
  level2Down: Level2Part | null = null;
  /** a part whose API answer misbehaves over time */
  slowApi: { part: GoldenType | "isin" | "bic"; mode: SlowMode } | null = null;
  /** every file ever published stays downloadable, like GLEIF's storage */
  private readonly files = new Map<string, Buffer>();
  private server: Server | null = null;
  private portNumber = 0;

  private constructor() {}

  /** Listens on 127.0.0.1:`port` (0: any free port). */
  static async start(port = 0): Promise<GleifImitation> {
    const g = new GleifImitation();
    g.portNumber = port;
    g.serveLevel2(g.level2);
    await g.up();
    return g;
  }

  get port(): number {
    return this.portNumber;
  }
  get origin(): string {
    return `http://127.0.0.1:${this.portNumber}`;
  }
  /** the value for --gleif-api */
  get api(): string {
    return `${this.origin}/api/v2`;
  }
  /** the value for --gleif-mapping-api */
  get mappingApi(): string {
    return `${this.origin}/mapping/api/v2`;
  }
  /** --gleif-api and --gleif-mapping-api, pointing at this imitation */
  get args(): string[] {
    return ["--gleif-api", this.api, "--gleif-mapping-api", this.mappingApi];
  }
  get isUp(): boolean {
    return this.server !== null;
  }

  /** Total requests for files (all names). */
  get fileRequestTotal(): number {
    let n = 0;
    for (const v of this.fileRequests.values()) n += v;
    return n;
  }

  fileRequestsFor(pub: GoldenCopy): number {
    return this.fileRequests.get(pub.name) ?? 0;
  }

  /** Makes `pub` the latest publication (and its file downloadable), with `level2` beside it (default: the ones served so far). */
  publish(pub: GoldenCopy, opts: PublishOptions = {}, level2?: Level2Publication): void {
    this.files.set(pub.name, pub.zip);
    const served: [GoldenType, Partial<Record<DeltaName, GoldenDelta>> | undefined][] = [
      ["lei2", opts.deltas],
      ["rr", opts.level2Deltas?.rr],
      ["repex", opts.level2Deltas?.repex],
    ];
    for (const [type, deltas] of served) {
      for (const [window, delta] of Object.entries(deltas ?? {}) as [DeltaName, GoldenDelta][]) {
        this.files.set(`${pub.stamp}-gleif-goldencopy-${type}-${DELTAS[window]}.csv.zip`, delta.zip);
      }
    }
    this.apiMode = "ok";
    this.serveLevel2(level2 ?? this.level2);
    this.current = {
      publishDate: pub.publishDate,
      stamp: pub.stamp,
      parts: { lei2: pub, rr: this.level2.rr, repex: this.level2.repex },
      opts,
    };
    this.history.unshift(this.current);
  }

  /** Serves these Level 2 files from now on, beside the current publication. */
  publishLevel2(level2: Level2Publication): void {
    this.serveLevel2(level2);
    if (this.current) this.current.parts = { ...this.current.parts, rr: level2.rr, repex: level2.repex };
  }

  /** Makes the files downloadable; the mapping files join the mapping API's list. */
  private serveLevel2(level2: Level2Publication): void {
    for (const file of Object.values(level2)) this.files.set(file.name, file.zip);
    this.level2 = level2;
    for (const [kind, part] of Object.entries(MAPPING_KINDS) as [MappingKind, "isin" | "bic"][]) {
      const file = level2[part];
      const id = uuidOf(file);
      if (this.mappings[kind][0]?.id !== id) this.mappings[kind].unshift({ id, file });
    }
  }

  /** The storage URL of a golden copy file, as GLEIF's API gives it. */
  private storageUrl(type: GoldenType, stamp: string, name: string): string {
    const [y, m, d] = [stamp.slice(0, 4), stamp.slice(4, 6), stamp.slice(6, 8)];
    return `${this.origin}/storage/golden-copy-files/${y}/${m}/${d}/${storageIdOf(type, stamp)}/${name}`;
  }

  /** A file descriptor of the API: url, sizes, records, type, format, delta type and CDF version. */
  private descriptor(
    type: GoldenType,
    stamp: string,
    format: "csv" | "json" | "xml",
    delta: keyof typeof DELTAS | null,
    file: Served,
    served?: GoldenDelta,
  ) {
    const base = delta === null ? `${stamp}-gleif-goldencopy-${type}-golden-copy` : `${stamp}-gleif-goldencopy-${type}-${DELTAS[delta]}`;
    // the full CSV is real, and so is a Level 1 delta CSV the test published; the rest is announced, not served
    const servedDelta = format === "csv" && served !== undefined ? served : null;
    const real = format === "csv" && delta === null;
    const size = servedDelta
      ? servedDelta.zip.length
      : real
        ? file.zip.length
        : Math.max(1, Math.round(file.zip.length / (delta === null ? 1 : 40)));
    return {
      url: this.storageUrl(type, stamp, real ? file.name : `${base}.${format}.zip`),
      size,
      size_human_readable: humanSize(size),
      record_count: servedDelta ? servedDelta.rows : real ? file.rows : Math.round(file.rows / (delta === null ? 1 : 40)),
      type,
      format,
      delta_type: delta ?? "GoldenCopy",
      cdf_version: GOLDEN_TYPES[type],
    };
  }

  /** The per-publish object of `type` in `publish`, as GLEIF's API writes it. */
  private partBody(publish: Publish, type: GoldenType): Record<string, unknown> {
    const file = publish.parts[type];
    const full = (format: "csv" | "json" | "xml") => this.descriptor(type, publish.stamp, format, null, file);
    const body: Record<string, unknown> = {
      type,
      publish_date: publish.publishDate,
      full_file: { csv: full("csv"), json: full("json"), xml: full("xml") },
      delta_files: Object.fromEntries(
        (Object.keys(DELTAS) as (keyof typeof DELTAS)[]).map((delta) => [
          delta,
          {
            csv: this.descriptor(
              type,
              publish.stamp,
              "csv",
              delta,
              file,
              type === "lei2" ? publish.opts.deltas?.[delta] : publish.opts.level2Deltas?.[type]?.[delta],
            ),
            json: this.descriptor(type, publish.stamp, "json", delta, file),
            xml: this.descriptor(type, publish.stamp, "xml", delta, file),
          },
        ]),
      ),
    };
    if (type === "lei2") {
      const csv = (body.full_file as { csv: Record<string, unknown> }).csv;
      if (publish.opts.fileMode === "redirect") csv.url = `${this.api}/golden-copies/publishes/lei2/latest.csv`;
      const count = publish.opts.recordCount === undefined ? file.rows : publish.opts.recordCount;
      if (count === null) delete csv.record_count;
      else csv.record_count = count;
    }
    return body;
  }

  /** The body of the API's answer for the current publication, as GLEIF writes it. */
  latestBody(): unknown {
    if (!this.current) return { data: null };
    return { data: this.partBody(this.current, "lei2") };
  }

  /** One file of the mapping API, as it writes it. */
  private mappingItem(kind: MappingKind, entry: MappingEntry): unknown {
    return {
      type: kind,
      id: entry.id,
      attributes: { fileName: entry.file.name, downloadLink: `${this.mappingApi}/${kind}/${entry.id}/download` },
    };
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.origin);
    const path = url.pathname;
    const golden = /^\/api\/v2\/golden-copies\/publishes(?:\/(lei2|rr|repex))?(?:\/(latest)(\.csv)?)?$/.exec(path);
    if (golden) return this.goldenApi(req, res, url, golden[1] as GoldenType | undefined, golden[2] !== undefined, golden[3] !== undefined);
    const mapping = /^\/mapping\/api\/v2\/(isin-lei|bic-lei)(?:\/(latest|[0-9a-f-]{36})(\/download)?)?$/.exec(path);
    if (mapping) return this.mappingApiAnswer(req, res, url, mapping[1] as MappingKind, mapping[2], mapping[3] !== undefined);
    const storage = /^\/storage\/golden-copy-files\/\d{4}\/\d{2}\/\d{2}\/\d+\/([^/]+)$/.exec(path);
    if (storage) return this.serveFile(req, res, decodeURIComponent(storage[1]));
    res.writeHead(404, { "Content-Type": "text/plain" }).end("no such route");
  }

  private goldenApi(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    type: GoldenType | undefined,
    latest: boolean,
    csv: boolean,
  ): void {
    if (csv) {
      // latest.csv: a 302 to the dated file in storage
      const publish = this.current;
      if (!publish || !type) {
        res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
        return;
      }
      const file = publish.parts[type];
      this.fileRequests.set(file.name, (this.fileRequests.get(file.name) ?? 0) + 1);
      res.writeHead(302, { Location: this.storageUrl(type, publish.stamp, file.name) }).end();
      return;
    }
    this.apiRequests++;
    if (type === "lei2" && this.failNextApi > 0) {
      this.failNextApi--;
      res.writeHead(503, { "Content-Type": "text/plain", "Retry-After": "1" }).end("deploying");
      return;
    }
    if ((type === "rr" || type === "repex") && this.level2Down === type) {
      res.writeHead(503, { "Content-Type": "text/plain" }).end("unavailable");
      return;
    }
    if (type === "lei2" && this.apiMode !== "ok") {
      switch (this.apiMode) {
        case "error-500":
          res.writeHead(500, { "Content-Type": "text/html" }).end("<html><body>Internal Server Error</body></html>");
          return;
        case "unavailable-503":
          res.writeHead(503, { "Content-Type": "text/plain" }).end("unavailable");
          return;
        case "invalid-json":
          res.writeHead(200, { "Content-Type": "application/json" }).end('{"data": {"publish_date": "2026-');
          return;
        case "no-url": {
          const body = this.latestBody() as { data: { full_file: { csv: Record<string, unknown> } } | null };
          if (body.data) delete body.data.full_file.csv.url;
          res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
          return;
        }
      }
    }
    if (!this.current) {
      res.writeHead(404, { "Content-Type": "application/json" }).end('{"errors":[{"status":"404"}]}');
      return;
    }
    const publish = this.current;
    let body: unknown;
    const headers: Record<string, string> = { "Content-Type": "application/vnd.api+json" };
    if (type && latest) body = { data: this.partBody(publish, type) };
    else if (latest) {
      body = { data: { lei2: this.partBody(publish, "lei2"), rr: this.partBody(publish, "rr"), repex: this.partBody(publish, "repex") } };
      headers["x-gleif-publish-date"] = `${publish.publishDate.replace(" ", "T")}+00:00`;
    } else if (!type) {
      const size = Math.max(1, Number(url.searchParams.get("page[size]") ?? url.searchParams.get("per_page") ?? "10") || 10);
      body = {
        data: this.history.slice(0, size).map((p) => ({
          publish_date: p.publishDate,
          lei2: this.partBody(p, "lei2"),
          rr: this.partBody(p, "rr"),
          repex: this.partBody(p, "repex"),
        })),
      };
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("no such route");
      return;
    }
    const slow = this.slowApi;
    this.answer(res, headers, JSON.stringify(body), slow && slow.part === type && latest ? slow.mode : null);
  }

  private mappingApiAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    kind: MappingKind,
    which: string | undefined,
    download: boolean,
  ): void {
    const part = MAPPING_KINDS[kind];
    const list = this.mappings[kind];
    if (download) {
      const entry = which === "latest" ? list[0] : list.find((e) => e.id === which);
      if (!entry) {
        res.writeHead(404, { "Content-Type": "application/json" }).end('{"errors":[{"status":"404"}]}');
        return;
      }
      this.fileRequests.set(entry.file.name, (this.fileRequests.get(entry.file.name) ?? 0) + 1);
      res.writeHead(200, {
        "Content-Type": "application/zip",
        "Content-Length": String(entry.file.zip.length),
        "Content-Disposition": `attachment; filename="${entry.file.name}"`,
      });
      res.end(entry.file.zip);
      return;
    }
    this.apiRequests++;
    if (this.level2Down === part) {
      res.writeHead(503, { "Content-Type": "text/plain" }).end("unavailable");
      return;
    }
    if (req.headers.accept === "application/json") {
      res.writeHead(406, { "Content-Type": "application/json" }).end('{"errors":[{"status":"406","title":"Not Acceptable"}]}');
      return;
    }
    let body: unknown;
    if (which === "latest") body = { data: list[0] ? this.mappingItem(kind, list[0]) : null };
    else if (which === undefined) {
      const size = Math.max(1, Number(url.searchParams.get("page[size]") ?? "15") || 15);
      body = {
        meta: {
          pagination: {
            currentPage: 1,
            perPage: size,
            from: 1,
            to: Math.min(size, list.length),
            total: list.length,
            lastPage: Math.ceil(list.length / size),
          },
        },
        data: list.slice(0, size).map((e) => this.mappingItem(kind, e)),
      };
    } else {
      const entry = list.find((e) => e.id === which);
      if (!entry) {
        res.writeHead(404, { "Content-Type": "application/json" }).end('{"errors":[{"status":"404"}]}');
        return;
      }
      body = { data: this.mappingItem(kind, entry) };
    }
    this.answer(
      res,
      { "Content-Type": "application/vnd.api+json" },
      JSON.stringify(body),
      this.slowApi && this.slowApi.part === part && which === "latest" ? this.slowApi.mode : null,
    );
  }

  /** A 200 JSON answer, whole, endless or trickling. */
  private answer(res: ServerResponse, headers: Record<string, string>, body: string, slow: SlowMode | null): void {
    if (slow === null) {
      res.writeHead(200, headers).end(body);
      return;
    }
    res.writeHead(200, headers);
    let stopped = false;
    res.on("close", () => {
      stopped = true;
    });
    // trickle: the answer one byte every 200 ms, then blanks (still valid JSON) for ever; endless:
    // a JSON string that never closes, 64 KB every 10 ms (paced, so an old build under test
    // grows slowly rather than taking the machine's memory)
    const bytes = Buffer.from(slow === "trickle" ? body : '{"data": {"publish_date": "2026-09-30 08:00:00", "padding": "');
    const filler = slow === "trickle" ? Buffer.from(" ") : Buffer.alloc(64 * 1024, "x");
    let at = 0;
    const timer = setInterval(
      () => {
        if (stopped) {
          clearInterval(timer);
          return;
        }
        if (slow === "endless" && at === 0) {
          at = bytes.length;
          res.write(bytes);
        } else if (at < bytes.length) res.write(bytes.subarray(at, ++at));
        else res.write(filler);
      },
      slow === "trickle" ? 200 : 10,
    );
  }

  private serveFile(req: IncomingMessage, res: ServerResponse, name: string): void {
    this.fileRequests.set(name, (this.fileRequests.get(name) ?? 0) + 1);
    const zip = this.files.get(name);
    const mode = this.current?.parts.lei2.name === name ? (this.current.opts.fileMode ?? "ok") : "ok";
    if (!zip || mode === "not-found") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    if (mode === "oversize") {
      // the zip, then bytes without end: only the announced size can tell the download to stop
      res.writeHead(200, { "Content-Type": "application/zip" });
      let stopped = false;
      res.on("close", () => {
        stopped = true;
      });
      res.write(zip);
      // 256 KB every 10 ms: paced, so an old build under test fills its disk slowly
      const more = Buffer.alloc(256 * 1024, 0x5a);
      const timer = setInterval(() => {
        if (stopped) clearInterval(timer);
        else res.write(more);
      }, 10);
      return;
    }
    res.writeHead(200, { "Content-Type": "application/zip", "Content-Length": String(zip.length) });
    if (mode === "trickle") {
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= zip.length) {
          clearInterval(timer);
          if (!res.destroyed) res.end();
        } else res.write(zip.subarray(at, ++at));
      }, 200);
      return;
    }
    if (mode === "cut") {
      res.write(zip.subarray(0, Math.floor(zip.length / 3)));
      setTimeout(() => req.socket.destroy(), 100);
      return;
    }
    res.end(zip);
  }

  /** Starts answering again (on the same port as before). */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.portNumber, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.portNumber = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Stops listening and drops every connection: the API is unreachable (connection refused). */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  close(): Promise<void> {
    return this.down();
  }
}
