// A small JSON value one thread writes and others read at once, in shared memory: what a front
// thread's own answers need of the main thread's state (the licence's rate entitlement,
// readiness). A message would arrive after the answer that made the change; this is read by the
// next request on any thread. A seqlock: the version is odd while a write is under way, and a
// reader that sees it change keeps what it read before.

const HEADER_INTS = 2; // version, length
const HEADER_BYTES = HEADER_INTS * 4;

export class SharedStatus<T> {
  private readonly header: Int32Array;
  private readonly bytes: Uint8Array;
  private seen = -1;
  private value: T | null = null;

  static create(capacity = 1 << 20): SharedArrayBuffer {
    return new SharedArrayBuffer(HEADER_BYTES + capacity);
  }

  constructor(readonly buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, HEADER_INTS);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** One writer only (the main thread). A value too long for the buffer throws. */
  write(value: T): void {
    const encoded = Buffer.from(JSON.stringify(value));
    if (encoded.length > this.bytes.length)
      throw new RangeError(`a status of ${encoded.length} bytes does not fit in ${this.bytes.length}`);
    Atomics.add(this.header, 0, 1);
    this.bytes.set(encoded);
    Atomics.store(this.header, 1, encoded.length);
    Atomics.add(this.header, 0, 1);
  }

  /** The last value written (null before any), decoded again only when it has changed. */
  read(): T | null {
    const version = Atomics.load(this.header, 0);
    if (version === this.seen || (version & 1) === 1) return this.value;
    const length = Atomics.load(this.header, 1);
    const text = Buffer.from(this.bytes.subarray(0, length)).toString();
    if (Atomics.load(this.header, 0) !== version) return this.value;
    this.seen = version;
    this.value = JSON.parse(text) as T;
    return this.value;
  }

  /** Changes with every write: a reader keeps what it derives from a value until it changes. */
  get version(): number {
    return this.seen;
  }
}
