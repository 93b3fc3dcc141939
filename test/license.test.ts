// The licence endpoints: GET /license, POST /license/activate with documents signed by a key made
// here (refused when tampered, expired, malformed or signed by another key, nothing stored),
// the entitlements applied to the listed client (rate limit, batch size), the licence kept across
// a restart, DELETE /license with the bootstrap key only, and /v1/stats and /metrics telling.

import t from "tap";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sampleModel } from "./helpers/fixture.js";
import { runLeidex, startServer, tempDir } from "./helpers/server.js";

const KEY = "license-bootstrap-key-0123456789";
const lei = sampleModel()[0].entity.lei;
const now = Math.floor(Date.now() / 1000);

const issuer = generateKeyPairSync("ed25519");
const stranger = generateKeyPairSync("ed25519");

function signed(document: object, privateKey: KeyObject = issuer.privateKey): { license: string; signature: string } {
  const bytes = Buffer.from(JSON.stringify(document));
  return { license: bytes.toString("base64url"), signature: sign(null, bytes, privateKey).toString("base64url") };
}

const partner = {
  licensee: "Example Partner Ltd",
  tier: "partner",
  issued_at: now - 60,
  expires_at: now + 86_400,
  entitlements: { clients: ["127.0.0.1", "::1", "10.0.0.0/8"], rate_limit: 10_000, batch_size: 2000 },
};

t.test("activation, entitlements, restart, deactivation", async (t) => {
  const dir = tempDir(t);
  const keyFile = join(dir, "license.pub.pem");
  writeFileSync(keyFile, issuer.publicKey.export({ type: "spki", format: "pem" }));
  const dataDir = join(dir, "data");
  const args = ["--api-key", KEY, "--license-public-key", keyFile];
  const server = await startServer(t, { args, dataDir, rateLimit: 5, rateWindow: 3600 });
  const activate = (body: unknown): Promise<Response> =>
    fetch(`${server.base}/license/activate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const info = await server.json("/license");
  t.same(info.activation, { state: "none" });
  t.equal(info.accepts_licenses, true);
  t.equal(info.data.license, "CC0 1.0");
  t.equal(info.software.license, "MIT");

  const good = signed(partner);
  const tampered = { ...good, license: Buffer.from(JSON.stringify({ ...partner, tier: "platinum" })).toString("base64url") };
  const refusals: [string, unknown, RegExp][] = [
    ["tampered", tampered, /signature does not match/],
    ["another issuer", signed(partner, stranger.privateKey), /signature does not match/],
    ["expired", signed({ ...partner, expires_at: now - 1 }), /expired at/],
    ["unknown field", signed({ ...partner, seats: 5 }), /unknown field 'seats'/],
    ["bad client", signed({ ...partner, entitlements: { clients: ["10.0.0.0/33"] } }), /'10.0.0.0\/33' is not an IP address or CIDR block/],
    ["not a signature", { license: good.license, signature: "abc" }, /64 bytes/],
    ["no signature", { license: good.license }, /required property 'signature'/],
  ];
  for (const [why, body, says] of refusals) {
    const res = await activate(body);
    t.equal(res.status, 400, `${why}: 400`);
    t.match(((await res.json()) as { message: string }).message, says, `${why}: says why`);
  }
  const notJson = await fetch(`${server.base}/license/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{",
  });
  t.equal(notJson.status, 400);
  t.same((await server.json("/license")).activation, { state: "none" }, "nothing was stored");
  t.equal((await server.json("/v1/stats")).licenseActive, false);

  // without the licence, 5 requests per window
  t.equal((await server.get(`/v1/entities/${lei}`)).headers.get("x-ratelimit-limit"), "5");

  const ok = await activate(good);
  t.equal(ok.status, 200);
  t.same(await ok.json(), {
    state: "active",
    licensee: "Example Partner Ltd",
    tier: "partner",
    expires_at: partner.expires_at,
    entitlements: partner.entitlements,
  });
  t.equal((await server.json("/v1/stats")).licenseActive, true, "/v1/stats tells");
  t.match((await server.get("/metrics")).text, /^leidex_license_active 1$/m, "/metrics tells");

  const limited = await server.get(`/v1/entities/${lei}`);
  t.equal(limited.headers.get("x-ratelimit-limit"), "10000", "the listed client gets the licence's rate limit");
  const batch = await fetch(`${server.base}/v1/entities/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ leis: Array(1500).fill(lei) }),
  });
  t.equal(batch.status, 200, "and its batch size: 1,500 LEIs");
  t.equal(((await batch.json()) as { found: number }).found, 1500);
  const over = await fetch(`${server.base}/v1/entities/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ leis: Array(2001).fill(lei) }),
  });
  t.equal(over.status, 413, "beyond the licence's 2,000: 413");

  // kept across a restart
  await server.stop();
  const again = await startServer(t, { args, dataDir, rateLimit: 5, rateWindow: 3600 });
  t.equal((await again.json("/license")).activation.state, "active", "still active after a restart");

  const del = (key?: string): Promise<Response> =>
    fetch(`${again.base}/license`, { method: "DELETE", headers: key ? { "x-typesense-api-key": key } : {} });
  t.equal((await del()).status, 401, "no key: 401");
  const created = await fetch(`${again.base}/keys`, {
    method: "POST",
    headers: { "x-typesense-api-key": KEY, "content-type": "application/json" },
    body: JSON.stringify({ actions: ["*"], collections: [] }),
  });
  const everything = ((await created.json()) as { value: string }).value;
  t.equal((await del(everything)).status, 403, "a key with every action is still not the bootstrap key: 403");
  const removed = await del(KEY);
  t.equal(removed.status, 200);
  t.same(await removed.json(), { state: "none" });
  t.equal((await del(KEY)).status, 404, "nothing left to remove");
  t.equal((await again.json("/v1/stats")).licenseActive, false);
  t.equal((await again.get("/v1/stats")).headers.get("x-ratelimit-limit"), "5", "back to the default limit");
});

t.test("a server without --license-public-key takes no licence; a bad key stops it at start", async (t) => {
  const server = await startServer(t);
  t.equal((await server.json("/license")).accepts_licenses, false);
  const res = await fetch(`${server.base}/license/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(signed(partner)),
  });
  t.equal(res.status, 400);
  t.match(((await res.json()) as { message: string }).message, /takes no licences: start it with --license-public-key/);

  const dir = tempDir(t);
  const rsa = join(dir, "rsa.pem");
  writeFileSync(rsa, generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "pem" }));
  const r = await runLeidex(["--source", "sample", "--license-public-key", rsa]);
  t.equal(r.code, 2, "an RSA key: exit 2");
  t.match(r.stderr, /--license-public-key must be an Ed25519 public key/);
  const inline = issuer.publicKey.export({ format: "jwk" }).x!;
  const withInline = await startServer(t, { args: ["--license-public-key", Buffer.from(inline, "base64url").toString("base64")] });
  t.equal((await withInline.json("/license")).accepts_licenses, true, "the key's 32 bytes in base64 work too");
});
