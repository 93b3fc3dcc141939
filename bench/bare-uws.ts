// The HTTP ceiling: a bare uWebSockets.js server answering a small fixed JSON body
// to every GET, run in its own process. Whatever Leidex does per request costs on
// top of this.
//
//   node dist/bench/bare-uws.js [--host 127.0.0.1] [--port 0]
//
// Prints "listening on http://HOST:PORT" when ready; exits on SIGTERM/SIGINT.

import path from "node:path";
import { fileURLToPath } from "node:url";
import uWS from "../src/http/uws.js";
import { Args, isMain } from "./args.js";
import { startServer, type ServerProcess } from "./proc.js";

/** Same shape and about the same size as a small LegalEntity answer. */
export const BODY = JSON.stringify({
  lei: "5493001KJTIIGC8Y1R12",
  legalName: "BLOOMBERG FINANCE L.P.",
  entityStatus: "ACTIVE",
  registrationStatus: "ISSUED",
  country: "US",
});

function serve(host: string, port: number): void {
  const app = uWS.App();
  app.get("/*", (res) => {
    res.cork(() => {
      res.writeHeader("Content-Type", "application/json").end(BODY);
    });
  });
  app.listen(host, port, (token) => {
    if (!token) {
      process.stderr.write(`bare-uws: cannot listen on ${host}:${port}\n`);
      process.exit(1);
    }
    const actual = uWS.us_socket_local_port(token);
    process.stdout.write(`listening on http://${host}:${actual}\n`);
    const close = (): void => {
      uWS.us_listen_socket_close(token);
      process.exit(0);
    };
    process.once("SIGTERM", close);
    process.once("SIGINT", close);
  });
}

/** Starts the bare server as a child process. */
export function startBareUws(port: number, host = "127.0.0.1"): Promise<ServerProcess> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "bare-uws.js");
  return startServer({ command: process.execPath, args: [script, "--host", host, "--port", String(port)], readyTimeoutMs: 15_000 });
}

if (isMain(import.meta.url)) {
  const args = new Args(process.argv.slice(2));
  serve(args.string("host") ?? "127.0.0.1", args.int("port", 0));
}
