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
import { DEFAULT_UPSTREAM_LIMITS, downloadDeadlineSeconds, freeBytes, megabytes, sizeCap, type UpstreamLimits } from "./upstream-limits.js";

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

export interface DownloadOptions {
  /** the file's name as the API announced it; else Content-Disposition's, else the basename of the URL the file came from */
  name?: string | null;
  /** the name kept under `dir`, from that one (made safe) */
  nameFor?: (name: string) => string;
  /** bytes the API announced (GLEIF's `size`); else Content-Length counts */
  announced?: number | null;
  limits?: UpstreamLimits;
  onProgress?: (p: DownloadProgress) => void;
}

/** How often a download looks at the free disk, in bytes written. */
const DISK_CHECK_BYTES = 8 * 1024 * 1024;

/**
 * Streams a URL to `dir`; returns the local path. Partial files never take the final name, and a
 * download that fails for any reason leaves none behind: it fails past its deadline, a margin
 * past its announced size, or when the disk would keep less free than the floor.
 */
export async function download(url: string, dir: string, opts: DownloadOptions = {}): Promise<string> {
  const limits = opts.limits ?? DEFAULT_UPSTREAM_LIMITS;
  await mkdir(dir, { recursive: true });
  let partial: string | null = null;
  let target = "";
  const announced = opts.announced ?? null;
  const free = freeBytes(dir);
  if (free !== null && free - (announced ?? 0) < limits.diskFloorBytes) {
    throw new SourceError(
      `download of ${url} not started: ${megabytes(free)} free on the data dir's disk${announced === null ? "" : ` for ${megabytes(announced)} announced`}, and ${megabytes(limits.diskFloorBytes)} must stay free (--disk-floor-mb)`,
    );
  }
  // the deadline runs on the monotonic clock: a wall-clock step neither fails nor frees a download
  const started = performance.now();
  const controller = new AbortController();
  let failure: SourceError | null = null;
  let expected: number | null = announced;
  let bytes = 0;
  let body: Readable | null = null;
  const fail = (err: SourceError): void => {
    failure ??= err;
    controller.abort(err);
    body?.destroy(err);
  };
  const clock = setInterval(() => {
    const seconds = (performance.now() - started) / 1000;
    const allowed = downloadDeadlineSeconds(limits, expected, bytes);
    if (seconds > allowed) {
      fail(
        new SourceError(
          `download of ${url} too slow: ${megabytes(bytes)} in ${Math.round(seconds)} s, past its deadline of ${Math.round(allowed)} s (${limits.apiSeconds} s and at least ${Math.round(limits.minBytesPerSecond / 1024)} KB/s, --upstream-timeout and --download-min-rate)`,
        ),
      );
    }
  }, 1000);
  try {
    const { res, from } = await follow(url, controller.signal);
    body = res.body;
    const found = safeFileName(opts.name ?? dispositionName(res.headers["content-disposition"]), from);
    target = join(dir, opts.nameFor ? opts.nameFor(found) : found);
    partial = `${target}.part`;
    const lengthHeader = res.headers["content-length"];
    const total = typeof lengthHeader === "string" && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
    expected = announced ?? total;
    const cap = sizeCap(announced !== null && total !== null ? Math.min(announced, total) : expected);
    let lastReport = 0;
    let lastDiskCheck = 0;
    const guard = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > cap) {
          return done(
            new SourceError(
              `download of ${url} cut at ${megabytes(bytes)}: ${expected === null ? "nothing was announced and" : `${megabytes(expected)} were announced, and`} at most ${megabytes(cap)} are taken`,
            ),
          );
        }
        if (bytes - lastDiskCheck >= DISK_CHECK_BYTES) {
          lastDiskCheck = bytes;
          const left = freeBytes(dir);
          if (left !== null && left < limits.diskFloorBytes) {
            return done(
              new SourceError(
                `download of ${url} stopped at ${megabytes(bytes)}: only ${megabytes(left)} left free on the data dir's disk, and ${megabytes(limits.diskFloorBytes)} must stay free (--disk-floor-mb)`,
              ),
            );
          }
        }
        const now = performance.now();
        if (opts.onProgress && now - lastReport >= 2000) {
          lastReport = now;
          opts.onProgress({ bytes, total: expected, seconds: (now - started) / 1000 });
        }
        done(null, chunk);
      },
    });
    await pipeline(res.body, guard, createWriteStream(partial));
    if (total !== null && bytes !== total) throw new SourceError(`download of ${url} truncated: ${bytes} of ${total} bytes`);
  } catch (err) {
    if (partial !== null) await rm(partial, { force: true });
    if (failure) throw failure;
    throw err instanceof SourceError ? err : new SourceError(`download of ${url} failed: ${(err as Error).message}`);
  } finally {
    clearInterval(clock);
  }
  await rename(partial!, target);
  return target;
}

/** The file name of a Content-Disposition header (`attachment; filename="isin-lei-….zip"`), if any. */
function dispositionName(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(value) : null;
  return m ? m[1] : null;
}

/** `name` (or the URL's basename) as one safe file name: no directory, no dot first, nothing odd. */
export function safeFileName(name: string | null, url: string): string {
  let raw = name ?? "";
  if (raw === "") {
    try {
      raw = decodeURIComponent(basename(new URL(url).pathname));
    } catch {
      raw = basename(new URL(url).pathname);
    }
  }
  const safe = basename(raw.replace(/\\/g, "/"))
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^[.-]+/, "")
    .slice(0, 160);
  return safe === "" ? "golden-copy" : safe;
}

const MAX_REDIRECTS = 5;

/** GET with redirects followed by hand (GLEIF answers its "latest" links with a 302). */
async function follow(url: string, signal: AbortSignal): Promise<{ res: Awaited<ReturnType<typeof request>>; from: string }> {
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res;
    try {
      res = await request(target, { headersTimeout: 60_000, bodyTimeout: 120_000, signal });
    } catch (err) {
      throw new SourceError(`download of ${target} failed: ${(err as Error).message}`);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string") {
      await res.body.dump().catch(() => undefined);
      target = new URL(location, target).href;
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump().catch(() => undefined);
      throw new SourceError(`download of ${target} failed: HTTP ${res.statusCode}`);
    }
    return { res, from: target };
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
