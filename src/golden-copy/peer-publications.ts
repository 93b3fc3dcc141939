// What the other nodes on the shared store serve (--database). Each node records its live
// collection's publication at every swap, and watches the newest publication any node serves
// (a notification at each record, a poll behind it). A node serving an older one is not ready
// (/health/ready says why) and reloads, once per newer publication, to catch up: in a rolling
// reload the nodes that have the new publication serve while the others load it.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LiveGeneration } from "../engine/collection.js";
import { writeFileAtomically } from "../store/durable-file.js";
import type { SharedDb } from "../store/pg/shared-db.js";
import { versionedWrite, watchVersion } from "../store/pg/versioned.js";

const TABLE = "node_publications";

export interface PeerPublication {
  node: string;
  collection: string;
  /** ISO 8601, UTC */
  published: string;
}

/** Why this node is behind its peers, for /health/ready. */
export interface Behind {
  reason: string;
  peer: PeerPublication;
}

export class PeerPublications {
  private newest: PeerPublication | null = null;
  private caughtUpFor: string | null = null;
  private unwatch: (() => void) | null = null;

  constructor(
    private readonly db: SharedDb,
    readonly node: string,
    private readonly live: () => LiveGeneration | null,
    private readonly log: (line: string) => void,
  ) {}

  /** Called whenever the newest publication has been read again (what behind() says may have changed). */
  onNewest: (() => void) | null = null;

  /** Reads the newest publication, then follows it; `catchUp` runs once per newer publication than this node's. */
  async start(catchUp: () => void): Promise<void> {
    // read again only when the records moved on (this node's own swap included)
    let seen = -1;
    const look = (version: number): Promise<void> =>
      this.readNewest().then(
        () => {
          seen = version;
          const behind = this.behind();
          if (!behind || this.caughtUpFor === behind.peer.published) return;
          this.caughtUpFor = behind.peer.published;
          this.log(`${behind.reason}: loading the source again`);
          catchUp();
        },
        () => undefined, // the database is away: the next version heard reads again
      );
    await look(-1);
    this.unwatch = watchVersion(this.db, TABLE, (version) => {
      if (version !== seen) void look(version);
    });
  }

  /** Records what this node serves now (after each swap). */
  async announce(live: LiveGeneration): Promise<void> {
    await versionedWrite(this.db, TABLE, async (q) => {
      await q(
        `INSERT INTO node_publications (node, collection, published, fallback) VALUES ($1, $2, $3, $4)
         ON CONFLICT (node) DO UPDATE SET collection = excluded.collection, published = excluded.published,
           fallback = excluded.fallback, updated_at = now()`,
        [this.node, live.name, live.published, live.fallback],
      );
      return { changed: true, result: null };
    });
  }

  /** Null while this node serves the newest publication any node serves (or cannot tell). */
  behind(): Behind | null {
    const live = this.live();
    const peer = this.newest;
    if (!live || !peer || peer.node === this.node) return null;
    if (live.fallback) return { reason: `serving the bundled sample while node ${peer.node} serves ${peer.published}`, peer };
    if (live.published === null || Date.parse(live.published) >= Date.parse(peer.published)) return null;
    return { reason: `serving the publication of ${live.published} while node ${peer.node} serves ${peer.published}`, peer };
  }

  private async readNewest(): Promise<void> {
    const { rows } = await this.db.pool.query<{ node: string; collection: string; published: Date }>(
      "SELECT node, collection, published FROM node_publications WHERE published IS NOT NULL AND NOT fallback ORDER BY published DESC, node LIMIT 1",
    );
    this.newest =
      rows.length === 0 ? null : { node: rows[0].node, collection: rows[0].collection, published: isoSeconds(rows[0].published) };
    this.onNewest?.();
  }

  close(): void {
    this.unwatch?.();
  }
}

/** 2026-09-30T08:00:00.000Z -> 2026-09-30T08:00:00Z, as /v1/stats writes publications. */
const isoSeconds = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** This node's name among its peers: made once, kept in <data-dir>/node-id. */
export function nodeIdOf(dataDir: string): string {
  const path = join(dataDir, "node-id");
  try {
    const kept = readFileSync(path, "utf8").trim();
    if (kept !== "") return kept;
  } catch {
    // none yet
  }
  const made = `node-${randomBytes(6).toString("hex")}`;
  writeFileAtomically(path, `${made}\n`);
  return made;
}
