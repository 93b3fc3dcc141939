// Where a golden copy comes from: a local CSV, a local zip (one CSV entry, ZIP64 fine), or an
// http(s) URL downloaded to the data dir first (a zip needs random access to its directory).

import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Transform, type Readable } from "node:stream";
import { crc32, createInflateRaw } from "node:zlib";
import { request } from "undici";
import yauzl from "yauzl";

export class SourceError extends Error {}

export interface OpenedSource {
  stream: Readable;
  /** bytes of CSV expected, when known (for progress) */
  size: number | null;
  close(): void;
}

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export interface DownloadProgress {
  bytes: number;
  total: number | null;
  seconds: number;
}

/** Streams a URL to `dir`; returns the local path. Partial files never take the final name. */
export async function download(url: string, dir: string, onProgress?: (p: DownloadProgress) => void): Promise<string> {
  await mkdir(dir, { recursive: true });
  const name = basename(new URL(url).pathname) || "golden-copy";
  const target = join(dir, name);
  const partial = `${target}.part`;
  const started = Date.now();
  const res = await follow(url);
  const lengthHeader = res.headers["content-length"];
  const total = typeof lengthHeader === "string" ? Number(lengthHeader) : null;
  let bytes = 0;
  let lastReport = 0;
  res.body.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    const now = Date.now();
    if (onProgress && now - lastReport >= 2000) {
      lastReport = now;
      onProgress({ bytes, total, seconds: (now - started) / 1000 });
    }
  });
  try {
    await pipeline(res.body, createWriteStream(partial));
    if (total !== null && bytes !== total) throw new SourceError(`download of ${url} truncated: ${bytes} of ${total} bytes`);
  } catch (err) {
    await rm(partial, { force: true });
    throw err instanceof SourceError ? err : new SourceError(`download of ${url} failed: ${(err as Error).message}`);
  }
  await rename(partial, target);
  return target;
}

const MAX_REDIRECTS = 5;

/** GET with redirects followed by hand (GLEIF answers its "latest" links with a 302). */
async function follow(url: string): Promise<Awaited<ReturnType<typeof request>>> {
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res;
    try {
      res = await request(target, { headersTimeout: 60_000, bodyTimeout: 120_000 });
    } catch (err) {
      throw new SourceError(`download of ${target} failed: ${(err as Error).message}`);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string") {
      await res.body.dump();
      target = new URL(location, target).href;
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      throw new SourceError(`download of ${target} failed: HTTP ${res.statusCode}`);
    }
    return res;
  }
  throw new SourceError(`download of ${url} failed: more than ${MAX_REDIRECTS} redirects`);
}

export async function openLocal(path: string): Promise<OpenedSource> {
  const info = await stat(path).catch(() => null);
  if (!info || !info.isFile()) throw new SourceError(`source file not found: ${path}`);
  if (await looksLikeZip(path)) return openZip(path);
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  return { stream, size: info.size, close: () => stream.destroy() };
}

async function looksLikeZip(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    return head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await fh.close();
  }
}

/**
 * Inflated bytes a chunk: zlib's default of 16 KB means one trip to the thread pool and one
 * stream callback for every 16 KB of a 5 GB CSV, which cost the loader more than the inflating.
 */
const INFLATE_CHUNK = 1 << 18;
const DEFLATED = 8,
  STORED = 0;

function openZip(path: string): Promise<OpenedSource> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, zip) => {
      if (err || !zip) return reject(new SourceError(`not a readable zip: ${err?.message ?? path}`));
      const fail = (e: Error): void => {
        zip.close();
        reject(new SourceError(`corrupt zip ${path}: ${e.message}`));
      };
      zip.on("error", fail);
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/") || !/\.csv$/i.test(entry.fileName)) {
          zip.readEntry();
          return;
        }
        if (entry.isEncrypted()) return fail(new Error(`${entry.fileName} is encrypted`));
        if (entry.compressionMethod !== DEFLATED && entry.compressionMethod !== STORED) {
          return fail(new Error(`${entry.fileName} uses compression method ${entry.compressionMethod}`));
        }
        zip.openReadStream(entry, { decodeFileData: false }, (e2, raw) => {
          if (e2 || !raw) return fail(e2 ?? new Error("no stream"));
          const inflated = entry.compressionMethod === DEFLATED ? raw.pipe(createInflateRaw({ chunkSize: INFLATE_CHUNK })) : raw;
          const checked = inflated.pipe(checkedEntry(entry, `${path}: ${entry.fileName}`));
          const broken = (e: Error): void => {
            checked.destroy(new SourceError(`corrupt zip ${path}: ${e.message}`));
          };
          raw.on("error", broken);
          if (inflated !== raw) inflated.on("error", broken);
          resolve({
            stream: checked,
            size: entry.uncompressedSize,
            close: () => {
              raw.destroy();
              inflated.destroy();
              checked.destroy();
              zip.close();
            },
          });
        });
      });
      zip.on("end", () => {
        zip.close();
        reject(new SourceError(`zip ${path} holds no .csv entry`));
      });
      zip.readEntry();
    });
  });
}

/** Passes bytes through and fails at the end unless their count and CRC-32 are the ones the zip records. */
function checkedEntry(entry: yauzl.Entry, label: string): Transform {
  let crc = 0;
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      crc = crc32(chunk, crc);
      bytes += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      if (bytes !== entry.uncompressedSize) {
        done(new SourceError(`corrupt zip ${label}: ${bytes} bytes inflated, the zip says ${entry.uncompressedSize}`));
      } else if (crc >>> 0 !== entry.crc32 >>> 0) {
        done(new SourceError(`corrupt zip ${label}: CRC-32 ${(crc >>> 0).toString(16)} instead of ${(entry.crc32 >>> 0).toString(16)}`));
      } else done(null);
    },
  });
}
