// An incremental HTTP/1.1 response parser for the load generator that allocates nothing per
// response: it is fed bytes as they are read (into one reused buffer), parses a head where it
// lies (copying aside only one split across reads), counts body bytes without keeping them, and
// reports each complete response. A client that made strings and buffers per response ran a young-generation
// collection every few hundred ms, each pausing it for up to 20 ms, and an open loop reports
// such a pause of its own as the server's latency.
//
// It handles what a benchmark meets: a status line, Content-Length or chunked bodies (chunk
// extensions and trailers skipped), and whether the connection closes after the response.

const CR = 0x0d,
  LF = 0x0a,
  COLON = 0x3a,
  SPACE = 0x20,
  TAB = 0x09,
  SEMICOLON = 0x3b;
const MAX_HEAD = 64 * 1024;
const MAX_SIZE_LINE = 1024;

const enum State {
  Head,
  Body,
  ChunkSize,
  ChunkExtension,
  ChunkSizeLf,
  ChunkData,
  ChunkDataCr,
  ChunkDataLf,
  Trailer,
}

const CONTENT_LENGTH = bytesOf("content-length");
const TRANSFER_ENCODING = bytesOf("transfer-encoding");
const CONNECTION = bytesOf("connection");
const CHUNKED = bytesOf("chunked");
const CLOSE = bytesOf("close");

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** What a fed run of bytes led to. */
export type ParseOutcome = "more" | "close" | "bad-head" | "head-too-large" | "bad-chunk";

export class ResponseParser {
  private state = State.Head;
  private readonly head = new Uint8Array(MAX_HEAD);
  private headLength = 0;
  private status = 0;
  private chunked = false;
  private closeAfter = false;
  /** body bytes still due (Content-Length), or left in the current chunk */
  private remaining = 0;
  /** bytes of the chunk-size line or trailer line read so far */
  private lineLength = 0;

  /** `onResponse` is called once per complete response with its status. */
  constructor(private readonly onResponse: (status: number) => void) {}

  /** Starts afresh, as on a new connection. */
  reset(): void {
    this.state = State.Head;
    this.headLength = 0;
  }

  /**
   * Parses bytes[from, to). Returns "close" right after a response that ends its connection (the
   * rest is not parsed), an error kind for a malformed response, else "more".
   */
  feed(bytes: Uint8Array, from: number, to: number): ParseOutcome {
    let at = from;
    while (at < to) {
      switch (this.state) {
        case State.Head: {
          // a head read whole in these bytes is parsed where it lies; one split across reads is
          // gathered aside first
          const whole = this.headLength === 0 ? headEnd(bytes, at, to) : -1;
          let parsed: boolean;
          if (whole >= 0) {
            if (whole - at > MAX_HEAD) return "head-too-large";
            parsed = this.parseHead(bytes, at, whole - 4);
            at = whole;
          } else {
            const end = this.takeHead(bytes, at, to);
            if (end < 0) return this.headLength >= MAX_HEAD ? "head-too-large" : "more";
            at = end;
            parsed = this.parseHead(this.head, 0, this.headLength - 4);
          }
          if (!parsed) return "bad-head";
          this.headLength = 0;
          if (this.chunked) {
            this.state = State.ChunkSize;
            this.remaining = 0;
            this.lineLength = 0;
          } else if (this.remaining > 0) this.state = State.Body;
          else if (this.complete()) return "close";
          break;
        }
        case State.Body: {
          const take = Math.min(this.remaining, to - at);
          this.remaining -= take;
          at += take;
          if (this.remaining === 0 && this.complete()) return "close";
          break;
        }
        case State.ChunkSize: {
          const b = bytes[at++];
          if (++this.lineLength > MAX_SIZE_LINE) return "bad-chunk";
          const digit = hexValue(b);
          if (digit >= 0) this.remaining = this.remaining * 16 + digit;
          else if (b === SEMICOLON || b === SPACE || b === TAB) this.state = State.ChunkExtension;
          else if (b === CR && this.lineLength > 1) this.state = State.ChunkSizeLf;
          else return "bad-chunk";
          break;
        }
        case State.ChunkExtension: {
          const b = bytes[at++];
          if (++this.lineLength > MAX_SIZE_LINE) return "bad-chunk";
          if (b === CR) this.state = State.ChunkSizeLf;
          break;
        }
        case State.ChunkSizeLf: {
          if (bytes[at++] !== LF) return "bad-chunk";
          this.lineLength = 0;
          this.state = this.remaining === 0 ? State.Trailer : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          const take = Math.min(this.remaining, to - at);
          this.remaining -= take;
          at += take;
          if (this.remaining === 0) this.state = State.ChunkDataCr;
          break;
        }
        case State.ChunkDataCr:
          if (bytes[at++] !== CR) return "bad-chunk";
          this.state = State.ChunkDataLf;
          break;
        case State.ChunkDataLf:
          if (bytes[at++] !== LF) return "bad-chunk";
          this.state = State.ChunkSize;
          this.lineLength = 0;
          break;
        case State.Trailer: {
          // trailer lines until an empty one; lineLength counts a line's bytes before its CR LF
          const b = bytes[at++];
          if (b === LF) {
            if (this.lineLength === 0 && this.complete()) return "close";
            this.lineLength = 0;
          } else if (b !== CR) {
            if (++this.lineLength > MAX_SIZE_LINE) return "bad-chunk";
          }
          break;
        }
      }
    }
    return "more";
  }

  /** Copies head bytes aside up to the blank line; where the body starts, or -1 while the head goes on. */
  private takeHead(bytes: Uint8Array, from: number, to: number): number {
    const head = this.head;
    let n = this.headLength;
    for (let at = from; at < to; at++) {
      if (n >= MAX_HEAD) {
        this.headLength = n;
        return -1;
      }
      const b = bytes[at];
      head[n++] = b;
      if (b === LF && n >= 4 && head[n - 2] === CR && head[n - 3] === LF && head[n - 4] === CR) {
        this.headLength = n;
        return at + 1;
      }
    }
    this.headLength = n;
    return -1;
  }

  /**
   * Status line and the three headers that frame the body, from the head at src[from, end) (`end`
   * is where its closing blank line starts); false when the head is not HTTP/1.x.
   */
  private parseHead(src: Uint8Array, from: number, end: number): boolean {
    // "HTTP/1.1 200 OK"
    if (
      end - from < 12 ||
      src[from] !== 0x48 ||
      src[from + 1] !== 0x54 ||
      src[from + 2] !== 0x54 ||
      src[from + 3] !== 0x50 ||
      src[from + 4] !== 0x2f ||
      src[from + 5] !== 0x31 ||
      src[from + 6] !== 0x2e
    )
      return false;
    this.status = digitsValue(src, from + 9, from + 12);
    if (!(this.status >= 100 && this.status < 600)) return false;
    this.closeAfter = src[from + 7] === 0x30; // HTTP/1.0 closes by default
    this.chunked = false;
    this.remaining = 0;
    let line = indexOfCrLf(src, from, end);
    while (line >= 0 && line < end) {
      const start = line + 2;
      const next = indexOfCrLf(src, start, end);
      const stop = next < 0 ? end : next;
      const colon = src.indexOf(COLON, start);
      if (colon > start && colon < stop) {
        let v = colon + 1;
        while (v < stop && (src[v] === SPACE || src[v] === TAB)) v++;
        if (nameIs(src, start, colon, CONTENT_LENGTH)) {
          let e = stop;
          while (e > v && (src[e - 1] === SPACE || src[e - 1] === TAB)) e--;
          const length = digitsValue(src, v, e);
          if (length < 0) return false;
          this.remaining = length;
        } else if (nameIs(src, start, colon, TRANSFER_ENCODING)) this.chunked = containsWord(src, v, stop, CHUNKED);
        else if (nameIs(src, start, colon, CONNECTION) && containsWord(src, v, stop, CLOSE)) this.closeAfter = true;
      }
      line = next;
    }
    return true;
  }

  /** Reports the response; true when its connection closes after it. */
  private complete(): boolean {
    this.state = State.Head;
    this.onResponse(this.status);
    return this.closeAfter;
  }
}

/**
 * Where a head that starts at `from` ends (just after its blank line), if it does before `to`;
 * else -1. The search for LF is the buffer's own (memchr), not a loop over every byte.
 */
function headEnd(bytes: Uint8Array, from: number, to: number): number {
  for (let p = from; ;) {
    const lf = bytes.indexOf(LF, p);
    if (lf < 0 || lf >= to) return -1;
    if (lf - 3 >= from && bytes[lf - 1] === CR && bytes[lf - 2] === LF && bytes[lf - 3] === CR) return lf + 1;
    p = lf + 1;
  }
}

/** Where the first CR LF at or after `from` starts, up to one starting at `last`; -1 when none. */
function indexOfCrLf(bytes: Uint8Array, from: number, last: number): number {
  for (let p = from + 1; ;) {
    const lf = bytes.indexOf(LF, p);
    if (lf < 0 || lf - 1 > last) return -1;
    if (bytes[lf - 1] === CR) return lf - 1;
    p = lf + 1;
  }
}

/** The decimal number in bytes[from, to), or -1 when empty or not all digits. */
function digitsValue(bytes: Uint8Array, from: number, to: number): number {
  if (to <= from) return -1;
  let v = 0;
  for (let at = from; at < to; at++) {
    const d = bytes[at] - 0x30;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Whether bytes[from, to) is `name`, ignoring ASCII case (`name` is lower case). */
function nameIs(bytes: Uint8Array, from: number, to: number, name: Uint8Array): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if ((bytes[from + i] | 0x20) !== name[i]) return false;
  return true;
}

/** Whether bytes[from, to) holds `word` anywhere, ignoring ASCII case (`word` is lower case). */
function containsWord(bytes: Uint8Array, from: number, to: number, word: Uint8Array): boolean {
  for (let at = from; at + word.length <= to; at++) {
    let i = 0;
    while (i < word.length && (bytes[at + i] | 0x20) === word[i]) i++;
    if (i === word.length) return true;
  }
  return false;
}
