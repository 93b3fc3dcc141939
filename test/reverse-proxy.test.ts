// The reverse-proxy configurations shipped in docs/proxy/, run for real: nginx and Caddy in
// front of Leidex, clients on other loopback addresses. An HTTP/1.0 client is served through
// nginx, and with --trust-proxy each client gets its own rate-limit budget, which a forged
// X-Forwarded-For does not escape. Skipped where nginx or caddy is not installed (.ci/run
// installs both).

import t, { type Test } from "tap";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort, ROOT, startServer, tempDir, type Teardownable } from "./helpers/server.js";

const has = (command: string): boolean => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;

/** One GET from a given loopback address, as raw HTTP of the given version. */
function get(port: number, from: string, path: string, version = "1.1", headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress: from });
    let text = "";
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    socket.on("connect", () => socket.write(`GET ${path} HTTP/${version}\r\nHost: leidex.test\r\nConnection: close\r\n${extra}\r\n`));
    socket.on("data", (c: Buffer) => {
      text += c.toString("latin1");
    });
    socket.on("close", () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on("error", reject);
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: "127.0.0.1", port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

function run(t: Teardownable, command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) console.error(`${command} exited ${code}: ${stderr}`);
  });
  t.teardown(() => {
    child.kill("SIGTERM");
  });
  return child;
}

/** The shipped config with Leidex's port and the proxy's port put in. */
const shipped = (file: string, leidexPort: number, proxyPort: number): string =>
  readFileSync(join(ROOT, "docs/proxy", file), "utf8")
    .replaceAll("127.0.0.1:8080", `127.0.0.1:${leidexPort}`)
    .replace(/listen 80;|:80 \{/, (m) => m.replace("80", String(proxyPort)));

async function checkBehindProxy(t: Test, proxyPort: number): Promise<void> {
  t.equal(
    await get(proxyPort, "127.0.0.2", "/v1/entities?q=deutsche%20bank", "1.0"),
    200,
    "an HTTP/1.0 client is served through the proxy",
  );
  const budget = [];
  for (let i = 0; i < 3; i++) budget.push(await get(proxyPort, "127.0.0.3", "/v1/stats", "1.1", { "X-Forwarded-For": `203.0.113.${i}` }));
  t.same(budget, [200, 200, 429], "a client runs out of its own budget (2 a window), forged X-Forwarded-For or not");
  t.equal(await get(proxyPort, "127.0.0.4", "/v1/stats"), 200, "while another client behind the same proxy is served");
}

t.test("nginx with docs/proxy/nginx-leidex.conf", { skip: has("nginx") ? false : "nginx is not installed" }, async (t) => {
  const srv = await startServer(t, { args: ["--trust-proxy", "127.0.0.1", "--rate-limit", "2"] });
  const dir = tempDir(t, "leidex-nginx-");
  const port = await freePort();
  writeFileSync(join(dir, "leidex.conf"), shipped("nginx-leidex.conf", srv.port, port));
  for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, sub));
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      "daemon off;",
      "worker_processes 1;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log;`,
      "events {}",
      "http {",
      `access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;`,
      `uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
      `include ${dir}/leidex.conf;`,
      "}",
    ].join("\n"),
  );
  run(t, "nginx", ["-c", join(dir, "nginx.conf"), "-p", dir]);
  await waitForPort(port);
  await checkBehindProxy(t, port);
});

t.test("Caddy with docs/proxy/Caddyfile", { skip: has("caddy") ? false : "caddy is not installed" }, async (t) => {
  const srv = await startServer(t, { args: ["--trust-proxy", "127.0.0.1", "--rate-limit", "2"] });
  const dir = tempDir(t, "leidex-caddy-");
  const port = await freePort();
  writeFileSync(join(dir, "Caddyfile"), `{\n\tadmin off\n\tauto_https off\n}\n\n${shipped("Caddyfile", srv.port, port)}`);
  run(t, "caddy", ["run", "--config", join(dir, "Caddyfile"), "--adapter", "caddyfile"], {
    HOME: dir,
    XDG_DATA_HOME: dir,
    XDG_CONFIG_HOME: dir,
  });
  await waitForPort(port);
  await checkBehindProxy(t, port);
});
