// The load generator's response parser counts what the server answered: each response must be
// reported once, with its status, however the bytes are split across reads, and a malformed one
// must be refused rather than miscounted.

import t from "tap";
import { ResponseParser, type ParseOutcome } from "../bench/response-parser.js";

const RESPONSES = [
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 11\r\n\r\n{"a":"b\\r"}',
  "HTTP/1.1 204 No Content\r\nX-RateLimit-Remaining: 5\r\n\r\n",
  "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length:  2 \r\n\r\n{}",
  "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n",
  "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
  "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 3\r\n\r\nab\n",
];
const STATUSES = [200, 204, 429, 200, 200, 503];

function feedInPieces(text: string, piece: number): { statuses: number[]; outcomes: ParseOutcome[] } {
  const statuses: number[] = [];
  const outcomes: ParseOutcome[] = [];
  const parser = new ResponseParser((status) => statuses.push(status));
  const bytes = Buffer.from(text, "latin1");
  for (let at = 0; at < bytes.length; at += piece) {
    const outcome = parser.feed(bytes, at, Math.min(bytes.length, at + piece));
    if (outcome !== "more") outcomes.push(outcome);
  }
  return { statuses, outcomes };
}

t.test("every response is reported once, in order, however the bytes are split", async (t) => {
  const stream = RESPONSES.join("");
  for (let piece = 1; piece <= stream.length; piece++) {
    const { statuses, outcomes } = feedInPieces(stream, piece);
    if (statuses.join() !== STATUSES.join() || outcomes.length > 0) {
      t.fail(`split every ${piece} bytes: ${statuses.join()} ${outcomes.join()}`);
      return;
    }
  }
  t.pass("all split sizes agree");
});

t.test("a response that ends its connection says so, and the bytes after it are not parsed", async (t) => {
  for (const close of [
    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
  ]) {
    const statuses: number[] = [];
    const parser = new ResponseParser((s) => statuses.push(s));
    const bytes = Buffer.from(close + RESPONSES[0], "latin1");
    t.equal(parser.feed(bytes, 0, bytes.length), "close");
    t.same(statuses, [200], "only the closing response counted");
  }
  const keepAlive = new ResponseParser(() => undefined);
  const bytes = Buffer.from("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", "latin1");
  t.equal(keepAlive.feed(bytes, 0, bytes.length), "more");
});

t.test("malformed responses are refused by kind", async (t) => {
  const cases: [string, ParseOutcome][] = [
    ["HTTP/2 200 OK\r\n\r\n", "bad-head"],
    ["HTTP/1.1 2x0 OK\r\n\r\n", "bad-head"],
    ["HTTP/1.1 200 OK\r\nContent-Length: 1O\r\n\r\n", "bad-head"],
    ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad-chunk"],
    ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", "bad-chunk"],
    ["HTTP/1.1 200 OK\r\nX: " + "y".repeat(70_000), "head-too-large"],
  ];
  for (const [text, expected] of cases) {
    const bytes = Buffer.from(text, "latin1");
    t.equal(new ResponseParser(() => undefined).feed(bytes, 0, bytes.length), expected, JSON.stringify(text.slice(0, 40)));
  }
});

t.test("after reset, a half-read response is forgotten", async (t) => {
  const statuses: number[] = [];
  const parser = new ResponseParser((s) => statuses.push(s));
  const half = Buffer.from("HTTP/1.1 500 Internal", "latin1");
  parser.feed(half, 0, half.length);
  parser.reset();
  const whole = Buffer.from(RESPONSES[1], "latin1");
  t.equal(parser.feed(whole, 0, whole.length), "more");
  t.same(statuses, [204]);
});
