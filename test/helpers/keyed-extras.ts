// Helpers for the keyed engine API tests of multi_search, documents (export, import), search
// parameters and synonyms, presets and stopwords (test/engine-*.test.ts): records of the bundled
// sample that their effects rely on, many GETs over a few kept-alive connections (to compare a
// whole export with the public API one record at a time), raw-socket exchanges that go away
// midway (an export read a little, an upload sent in part), a body sent in chunks over time
// (Transfer-Encoding: chunked), and golden-copy CSVs built from the bundled sample.

import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { csvLine, readSample, withCheckDigits } from "./fixture.js";
import { readResponse, type KeyedResponse } from "./keys.js";

export type Plain = KeyedResponse;

// Records of the bundled sample the effects of typos, prefixes, synonyms and the rest rely on
// (checked by the first test of test/engine-synonyms-presets-stopwords.test.ts).
export const SEYMOUR = { lei: "213800ZIVJGTZ39AGY31", name: "SEYMOUR DISTRIBUTION LIMITED" };
export const ALFORD_LIMITED = { lei: "54930085QQRSVQ837138", name: "Alford International Holdings Limited" };
export const ALFORD_SARL = { lei: "5493003E6SCT1R8HVE65", name: "Alford International Holdings S.à.r.l." };
export const SATS = { lei: "529900SEP1R0K8049D51", name: "SATS LTD." };
export const KODAK = { lei: "33580031Q5E1JFYZ2C82", name: "KODAK INDIA PRIVATE LIMITED" };
export const DIVESTIX = [
  { lei: "894500VGS6EZGT4TCE36", name: "DivestiX Capital Kommanditbolag" },
  { lei: "894500VGXPYR3SGOZY03", name: "Divestix Capital Ltd" },
];

/** GETs over at most `sockets` kept-alive connections; close() frees them. */
export function keepAliveClient(
  port: number,
  sockets = 8,
): { get(path: string, headers?: Record<string, string>): Promise<Plain>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const get = (path: string, headers: Record<string, string> = {}): Promise<Plain> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path, headers, agent }, (res) => {
        readResponse(res).then(resolve, reject);
      });
      req.on("error", reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}

export interface AbortPlan {
  /** bytes written after the head (e.g. part of a declared body) */
  body?: Buffer;
  /** destroy once this many response bytes arrived (0: right after writing) */
  readBytes?: number;
  /** never read: the socket is paused so the server meets backpressure; destroy after waitMs */
  paused?: boolean;
  /** how long to wait before destroying when not waiting for bytes (default 200 ms) */
  waitMs?: number;
}

/**
 * Sends a raw HTTP/1.1 request head (and maybe part of a body), then destroys the connection
 * according to the plan. Resolves with the response bytes seen before going away.
 */
export function abortMidway(port: number, head: string, plan: AbortPlan = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const seen: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(Buffer.concat(seen));
    };
    const timer = setTimeout(finish, plan.readBytes ? 10_000 : (plan.waitMs ?? 200));
    socket.on("error", (err) => {
      clearTimeout(timer);
      if (!done) {
        done = true;
        reject(err);
      }
    });
    socket.on("connect", () => {
      socket.write(head);
      if (plan.body) socket.write(plan.body);
      if (plan.paused) {
        socket.pause();
        return;
      }
      socket.on("data", (chunk: Buffer) => {
        seen.push(chunk);
        size += chunk.length;
        if (plan.readBytes && size >= plan.readBytes) {
          clearTimeout(timer);
          finish();
        }
      });
    });
  });
}

/**
 * Sends a raw request head and waits `ms`: whether the server closed the connection meanwhile
 * (for a declared body it should be waiting for), and what it sent. Destroys the socket after.
 */
export function closedWithin(port: number, head: string, ms: number): Promise<{ closed: boolean; received: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = "";
    let closed = false;
    socket.on("connect", () => socket.write(head));
    socket.on("data", (c: Buffer) => {
      received += c.toString("latin1");
    });
    socket.on("end", () => {
      closed = true;
    });
    socket.on("close", () => {
      closed = true;
    });
    socket.on("error", (err) => {
      if (!closed) reject(err);
    });
    setTimeout(() => {
      const was = closed;
      socket.destroy();
      resolve({ closed: was, received });
    }, ms);
  });
}

/** A POST whose body goes out as Transfer-Encoding: chunked, one chunk every `gapMs`. */
export function chunkedPost(port: number, path: string, headers: Record<string, string>, chunks: Buffer[], gapMs = 0): Promise<Plain> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } },
      (res) => {
        readResponse(res).then(resolve, reject);
      },
    );
    req.on("error", reject);
    void (async () => {
      for (const chunk of chunks) {
        req.write(chunk);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      req.end();
    })();
  });
}

/** The upload files (upload-*) in <data-dir>/downloads, sorted; [] when the folder is absent. */
export function uploadFiles(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, "downloads"))
      .filter((n) => n.startsWith("upload-"))
      .sort();
  } catch {
    return [];
  }
}

export interface SyntheticImportRow {
  lei: string;
  name: string;
  country: string;
  city: string;
  address: string;
}

/** Five made-up entities with valid LEIs (prefix LEIDEXIMPRT), with quotes, commas, a newline and non-ASCII. */
export function importSynthetics(): SyntheticImportRow[] {
  const lei = (n: number): string => withCheckDigits(`LEIDEXIMPRT${String(n).padStart(7, "0")}`);
  return [
    { lei: lei(1), name: "Zorblatt Quantensysteme GmbH", country: "DE", city: "Köln", address: "Hohe Straße 12" },
    {
      lei: lei(2),
      name: 'Quillon "Quoted", Comma & Partners Ltd',
      country: "GB",
      city: "London",
      address: 'Unit 5, "The Old Mill"\nSecond line',
    },
    { lei: lei(3), name: "Ωmega Κεφάλαιο Ανώνυμη Εταιρεία", country: "GR", city: "Αθήνα", address: "Οδός Σταδίου 3" },
    { lei: lei(4), name: "Brindlemoor Vaults Limited", country: "IE", city: "Dublin", address: "1 Dock Road" },
    { lei: lei(5), name: "株式会社ヴェルテクス試験", country: "JP", city: "東京", address: "千代田区 1-1" },
  ];
}

/**
 * A golden-copy CSV: the sample's header, its first `sampleRows` rows and the synthetic rows,
 * every field quoted; `columns` drops header columns (to build a file that lacks one).
 */
export function goldenCopyCsv(
  sampleRows: number,
  synthetic: SyntheticImportRow[],
  opts: { drop?: string[]; eol?: string; bom?: boolean } = {},
): { text: string; header: string[]; rows: string[][] } {
  const { header, rows } = readSample();
  const synthRows = synthetic.map((s) =>
    header.map(
      (h) =>
        (
          ({
            LEI: s.lei,
            "Entity.LegalName": s.name,
            "Entity.LegalAddress.Country": s.country,
            "Entity.LegalJurisdiction": s.country,
            "Entity.LegalAddress.City": s.city,
            "Entity.LegalAddress.FirstAddressLine": s.address,
            "Entity.EntityStatus": "ACTIVE",
            "Registration.RegistrationStatus": "ISSUED",
          }) as Record<string, string>
        )[h] ?? "",
    ),
  );
  const all = [...rows.slice(0, sampleRows), ...synthRows];
  const keep = header.map((h, i) => (opts.drop?.includes(h) ? -1 : i)).filter((i) => i >= 0);
  const eol = opts.eol ?? "\n";
  const lines = [keep.map((i) => header[i]), ...all.map((r) => keep.map((i) => r[i] ?? ""))].map(csvLine);
  return { text: (opts.bom ? "\uFEFF" : "") + lines.join(eol) + eol, header, rows: all };
}
