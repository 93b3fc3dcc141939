// A private PostgreSQL 15 cluster for a test file: initdb in a temp dir, a server on 127.0.0.1
// (bench/pg-cluster.ts), stopped and removed at teardown. .ci/run installs PostgreSQL 15.

import { existsSync } from "node:fs";
import { startCluster } from "../../bench/pg-cluster.js";
import type { Teardownable } from "./server.js";

/** A skip reason where PostgreSQL 15 is missing; under CI=true the tests run, and fail, instead. */
export const POSTGRES_MISSING: string | false =
  existsSync("/usr/lib/postgresql/15/bin/initdb") || process.env.CI === "true"
    ? false
    : "PostgreSQL 15 is not installed here (.ci/run installs it)";

/** A fresh cluster: its postgres database's connection string, and a stop for tests of its absence. */
export async function privatePostgres(t: Teardownable): Promise<{ url: string; stop(): void }> {
  const cluster = await startCluster(40, () => undefined);
  t.teardown(() => cluster.stop());
  return { url: `postgres://postgres@127.0.0.1:${cluster.port}/postgres`, stop: () => cluster.stop() };
}
