// An imitation of GLEIF's golden copy service on 127.0.0.1, over real HTTP (node:http):
//   GET <api>/golden-copies/publishes/lei2/latest  -> the current publication as GLEIF's API writes it
//   GET <api>/golden-copies/publishes/rr/latest    -> the relationship records (Level 2), same shape
//   GET <api>/golden-copies/publishes/repex/latest -> the reporting exceptions (Level 2), same shape
//   GET <mapping>/isin-lei/latest, bic-lei/latest  -> the mapping files, as GLEIF's mapping API
//                                                     writes it (406 to Accept: application/json)
//   GET /files/<name>                              -> the golden copy zip
//   GET /redirect/<name>                           -> 302 to /files/<name> (GLEIF's "latest" links)
// Tests set the current publication, make the API or the file misbehave, count requests, and take
// the whole service down and up again on the same port. Also builds golden copies (zip of one CSV
// in the golden-copy column layout) from the bundled sample's header.

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
 * mapping files reversed inside, as GLEIF's are (`isin-lei-<stamp>.zip` holds `lei-isin-<stamp>.csv`).
 */
export function level2File(part: Level2Part, stamp: string, csv: string, zip?: Buffer): Level2File {
  const rows = csv.split("\n").filter((l) => l !== "").length - 1;
  const [name, entry] =
    part === "rr" || part === "repex"
      ? [`${stamp}-gleif-goldencopy-${part}-golden-copy.csv.zip`, `${stamp}-gleif-goldencopy-${part}-golden-copy.csv`]
      : [`${part}-lei-${stamp}.zip`, `lei-${part}-${stamp}.csv`];
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
  /** the API names /redirect/<name>, which answers 302 to /files/<name> */
  | "redirect"
  /** the file URL answers 404 */
  | "not-found"
  /** announces the whole Content-Length, sends part of it, then destroys the socket */
  | "cut";

export interface PublishOptions {
  fileMode?: FileMode;
  /** record_count to announce instead of the publication's real row count (null: leave it out) */
  recordCount?: number | null;
}

export class GleifImitation {
  apiMode: ApiMode = "ok";
  /** the next n API requests answer 503 whatever apiMode says */
  failNextApi = 0;
  /** API requests answered (any mode) */
  apiRequests = 0;
  /** requests to /files/... and /redirect/..., by file name */
  readonly fileRequests = new Map<string, number>();
  private current: { pub: GoldenCopy; opts: PublishOptions } | null = null;
  /** the Level 2 files served beside the current publication: the bundled sample's unless published otherwise */
  private level2: Level2Publication = sampleLevel2();
  /** a Level 2 part whose API answers 503 (the rest keeps working) */
  level2Down: Level2Part | null = null;
  /** every file ever published stays downloadable, like GLEIF's storage */
  private readonly files = new Map<string, Buffer>();
  private server: Server | null = null;
  private portNumber = 0;

  private constructor() {}

  /** Listens on 127.0.0.1:`port` (0: any free port). */
  static async start(port = 0): Promise<GleifImitation> {
    const g = new GleifImitation();
    g.portNumber = port;
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
    this.current = { pub, opts };
    this.apiMode = "ok";
    this.publishLevel2(level2 ?? this.level2);
  }

  /** Serves these Level 2 files from now on. */
  publishLevel2(level2: Level2Publication): void {
    for (const file of Object.values(level2)) this.files.set(file.name, file.zip);
    this.level2 = level2;
  }

  /** The rr or repex part of the current publication, as GLEIF's API writes it. */
  private level2Body(part: "rr" | "repex"): unknown {
    const file = this.level2[part];
    const publishDate = this.current?.pub.publishDate ?? "2026-09-30 08:00:00";
    return {
      data: {
        type: part,
        publish_date: publishDate,
        full_file: {
          csv: { url: `${this.origin}/files/${file.name}`, size: file.zip.length, record_count: file.rows },
          json: null,
          xml: null,
        },
        delta_files: {},
      },
    };
  }

  /** The body of the API's answer for the current publication, as GLEIF writes it. */
  latestBody(): unknown {
    if (!this.current) return { data: null };
    const { pub, opts } = this.current;
    const path = opts.fileMode === "redirect" ? `/redirect/${pub.name}` : `/files/${pub.name}`;
    const csv: Record<string, unknown> = { url: `${this.origin}${path}`, size: pub.zip.length };
    const count = opts.recordCount === undefined ? pub.rows : opts.recordCount;
    if (count !== null) csv.record_count = count;
    return {
      data: {
        type: "lei2",
        id: pub.stamp,
        publish_date: pub.publishDate,
        full_file: { csv, json: null, xml: null },
        delta_files: {},
      },
    };
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.origin);
    const level2 = /^\/(?:api\/v2\/golden-copies\/publishes\/(rr|repex)|mapping\/api\/v2\/(isin|bic)-lei)\/latest$/.exec(url.pathname);
    if (level2) {
      this.apiRequests++;
      const part = (level2[1] ?? level2[2]) as Level2Part;
      if (this.level2Down === part) {
        res.writeHead(503, { "Content-Type": "text/plain" }).end("unavailable");
        return;
      }
      if (level2[2] && req.headers.accept === "application/json") {
        res.writeHead(406, { "Content-Type": "application/json" }).end('{"errors":[{"status":"406","title":"Not Acceptable"}]}');
        return;
      }
      const file = this.level2[part];
      const body =
        part === "rr" || part === "repex"
          ? this.level2Body(part)
          : { data: { id: file.name, attributes: { fileName: file.name, downloadLink: `${this.origin}/files/${file.name}` } } };
      res.writeHead(200, { "Content-Type": "application/vnd.api+json" }).end(JSON.stringify(body));
      return;
    }
    if (url.pathname === "/api/v2/golden-copies/publishes/lei2/latest") {
      this.apiRequests++;
      if (this.failNextApi > 0) {
        this.failNextApi--;
        res.writeHead(503, { "Content-Type": "text/plain", "Retry-After": "1" }).end("deploying");
        return;
      }
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
          const body = this.latestBody() as { data: { full_file: { csv: Record<string, unknown> } } };
          if (body.data) delete body.data.full_file.csv.url;
          res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
          return;
        }
        case "ok":
          if (!this.current) {
            res.writeHead(404, { "Content-Type": "application/json" }).end('{"errors":[{"status":"404"}]}');
            return;
          }
          res.writeHead(200, { "Content-Type": "application/vnd.api+json" }).end(JSON.stringify(this.latestBody()));
          return;
      }
    }
    const file = /^\/(files|redirect)\/([^/]+)$/.exec(url.pathname);
    if (file) {
      const name = decodeURIComponent(file[2]);
      this.fileRequests.set(name, (this.fileRequests.get(name) ?? 0) + 1);
      const zip = this.files.get(name);
      const mode = this.current?.pub.name === name ? (this.current.opts.fileMode ?? "ok") : "ok";
      if (!zip || mode === "not-found") {
        res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
        return;
      }
      if (file[1] === "redirect") {
        res.writeHead(302, { Location: `/files/${encodeURIComponent(name)}` }).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "application/zip", "Content-Length": String(zip.length) });
      if (mode === "cut") {
        res.write(zip.subarray(0, Math.floor(zip.length / 3)));
        setTimeout(() => req.socket.destroy(), 100);
        return;
      }
      res.end(zip);
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" }).end("no such route");
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
