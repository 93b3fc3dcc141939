// The uWebSockets.js addon, loaded once for the front and the bench. Where the package's binary
// needs a newer glibc than this machine's (only for C23's renamed parsing functions, see
// uws-glibc-compat.ts), an adapted copy is written once into the cache directory (under the data
// directory; src/os/native-cache.ts), checked, and loaded instead. Nothing is written under the
// installation, which may be read-only.
// A binary that loads neither way stops the process with the reason: there is no slow fallback.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { isMainThread } from "node:worker_threads";
import type * as UWS from "uWebSockets.js";
import { StartupError } from "../config/startup-error.js";
import { cachedDerivative } from "../os/native-cache.js";
import { glibcCompatCopy } from "./uws-glibc-compat.js";

const require = createRequire(import.meta.url);
// uWS answers 431 to a request line plus headers over this size (its default is 4 KiB); read when the addon loads
process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(16 * 1024);

function glibcRuntime(): string | null {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ?? null;
}

/**
 * The adapted copy the main thread checked and loaded, handed to the threads it starts later
 * (a worker's environment is a copy of its parent's): the same file, already open in this
 * process, need not be hashed again by every front thread.
 */
const CHECKED_COPY = "LEIDEX_UWS_CHECKED_COPY";

function load(): typeof UWS {
  const checked = isMainThread ? undefined : process.env[CHECKED_COPY];
  if (checked) return require(checked) as typeof UWS;
  // set by this thread alone: a value from outside is never trusted
  if (isMainThread) delete process.env[CHECKED_COPY];
  let packageError: Error;
  try {
    return require("uWebSockets.js") as typeof UWS;
  } catch (err) {
    packageError = err as Error;
  }
  const packageDir = dirname(require.resolve("uWebSockets.js"));
  const version = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  // the addon is built per Node ABI: a Node line the package has no build for cannot run the server
  if (!existsSync(join(packageDir, binary)))
    throw new StartupError(
      `uWebSockets.js ${version} has no build for Node ${process.version} on ${process.platform}-${process.arch} (${binary}): run this server on Node 20, 22 or 24`,
    );
  const runtime = glibcRuntime();
  if (runtime === null || !/GLIBC_\d+\.\d+' not found/.test(packageError.message)) throw packageError;
  const name = `uws-${version}-glibc-${runtime}-${binary}`;
  const compat = cachedDerivative(name, join(packageDir, binary), (original) => glibcCompatCopy(original, runtime));
  const addon = require(compat) as typeof UWS;
  if (isMainThread) process.env[CHECKED_COPY] = compat;
  return addon;
}

const uWS: typeof UWS = load();
export default uWS;

/** uSockets' listen option that leaves SO_REUSEPORT unset */
export const LISTEN_EXCLUSIVE_PORT = 1;

// in the addon, not in its typings: sharing one listen socket between threads' apps, a host with listen options
declare module "uWebSockets.js" {
  interface TemplatedApp {
    /** this app, as a number another thread's acceptor can take */
    getDescriptor(): number;
    addChildAppDescriptor(descriptor: number): TemplatedApp;
    removeChildAppDescriptor(descriptor: number): TemplatedApp;
    /** with LIBUS_LISTEN_EXCLUSIVE_PORT (1): no SO_REUSEPORT */
    listen(host: RecognizedString, port: number, options: number, cb: (listenSocket: us_listen_socket | false) => void): TemplatedApp;
  }
}
