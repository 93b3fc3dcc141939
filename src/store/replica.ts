// A node's copy in memory of state that other nodes may write too (API keys, search settings,
// the licence): which version of it the copy holds, and when to read it again. Every committed
// write moves the version on by one. A write of this node is applied to the copy at once; a newer
// version heard from the store (a notification, a poll) makes the copy read again, one read at a
// time: what changed since its version, where the source can tell, else the whole state. A read
// older than this node's own last write is never applied.

export interface Versioned {
  version: number;
}

/** Where the state is stored: read, and watched for versions other nodes made. */
export interface ReplicaSource<S extends Versioned> {
  /** the whole state, or (a source that can) what changed since version `since` of it */
  read(since?: number): Promise<S>;
  /** calls back with the version when another node may have changed the state */
  watch(moved: (version: number) => void): void;
}

export class Replica<S extends Versioned> {
  /** the version the copy holds */
  private version = 0;
  /** the newest version a write of this node made */
  private newestWrite = 0;
  private reading = false;
  private readAgain = false;

  constructor(
    private readonly source: ReplicaSource<S>,
    private readonly apply: (snapshot: S) => void,
  ) {}

  /** Reads and applies the state once, at start before anything is served, then watches it. */
  async start(): Promise<void> {
    const snapshot = await this.source.read();
    this.apply(snapshot);
    this.version = snapshot.version;
    this.source.watch((version) => this.heard(version));
  }

  /** The store is at `version`: read again when that is newer than the copy. */
  heard(version: number): void {
    if (version > this.version) this.refresh();
  }

  /** A write of this node, already applied to the copy, made `version`. */
  wrote(version: number): void {
    this.newestWrite = Math.max(this.newestWrite, version);
    if (version === this.version + 1) this.version = version;
    else this.refresh(); // others wrote in between: the copy is behind
  }

  /** Reads the whole state again (coalesced); a failed read waits for the next version heard. */
  refresh(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    const next = async (): Promise<void> => {
      do {
        this.readAgain = false;
        const snapshot = await this.source.read(this.version);
        if (snapshot.version >= this.newestWrite && snapshot.version > this.version) {
          this.apply(snapshot);
          this.version = snapshot.version;
        }
      } while (this.readAgain);
    };
    next()
      .catch(() => undefined)
      .finally(() => {
        this.reading = false;
      });
  }
}

/** State kept through a Replica: subclasses say how a read is applied to their copy. */
export abstract class ReplicatedState<S extends Versioned> {
  protected readonly replica: Replica<S>;

  protected constructor(source: ReplicaSource<S>) {
    this.replica = new Replica(source, (snapshot) => this.apply(snapshot));
  }

  protected abstract apply(snapshot: S): void;
}
