// A key's collection patterns (Typesense: full-match regular expressions), matched in linear time.
// V8's RegExp backtracks: `(a+)+b` against thirty a's runs for minutes, and collection checks run
// on the front thread. So a pattern is compiled here into a Thompson NFA and simulated over the
// name in O(name length × program size), whatever the pattern. V8 still decides what one
// character matches (a class, an escape, `.`): that is constant work per character.
//
// Supported: literals, `.`, classes `[...]`/`[^...]`, the escapes \d \D \w \W \s \S \t \n \r \f
// \v \0 \xHH \uHHHH and escaped punctuation, groups `(...)`, `(?:...)`, `(?<name>...)`,
// alternation, the quantifiers * + ? {n} {n,} {n,m} (lazy or not: the same for a full match),
// and ^ $. Not supported (a pattern using them is refused when a key is created, and matches no
// collection if stored earlier): backreferences, lookarounds, \b \B, \c, \k, \p, escaped letters
// not listed. Limits: a pattern of at most MAX_PATTERN_CHARS, counts of at most MAX_COUNT, a
// program of at most MAX_PROGRAM instructions once counts are expanded, and MAX_KEY_PROGRAM across
// one key's patterns (so one check costs at most MAX_NAME_CHARS × MAX_KEY_PROGRAM steps); names
// longer than MAX_NAME_CHARS match no pattern.
//
// Text that is not a regular expression at all (`[invalid`) names only the collection of that
// exact name, as it always has.

const MAX_PATTERN_CHARS = 256;
const MAX_NAME_CHARS = 256;
const MAX_COUNT = 100;
const MAX_PROGRAM = 1000;
const MAX_KEY_PROGRAM = 4000;

type Test = (ch: string) => boolean;

type Node =
  | { t: "char"; test: Test }
  | { t: "start" }
  | { t: "end" }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; item: Node; min: number; max: number };

type Inst =
  | { op: "char"; test: Test }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; to: number }
  | { op: "start" }
  | { op: "end" }
  | { op: "match" };

export type CompiledPattern =
  | { kind: "pattern"; program: Inst[] }
  /** not a regular expression: only the exact name */
  | { kind: "literal" }
  | { kind: "unsupported"; reason: string };

class Unsupported extends Error {}

const cache = new Map<string, CompiledPattern>();
const CACHE_SIZE = 4096;

/** The compiled form of a pattern, cached. */
export function compilePattern(source: string): CompiledPattern {
  let compiled = cache.get(source);
  if (compiled) return compiled;
  compiled = compile(source);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(source, compiled);
  return compiled;
}

const byKey = new WeakMap<readonly string[], CompiledPattern[]>();

/**
 * A key's collection entries compiled, in order; once their programs together pass
 * MAX_KEY_PROGRAM, the rest are unsupported. Cached by the (stored, never mutated) array.
 */
export function compileKeyPatterns(entries: readonly string[]): CompiledPattern[] {
  let compiled = byKey.get(entries);
  if (compiled) return compiled;
  let total = 0;
  compiled = entries.map((entry) => {
    const c = compilePattern(entry);
    if (c.kind !== "pattern") return c;
    total += c.program.length;
    return total > MAX_KEY_PROGRAM ? { kind: "unsupported", reason: `beyond ${MAX_KEY_PROGRAM} steps across the key's patterns` } : c;
  });
  byKey.set(entries, compiled);
  return compiled;
}

/** Whether `name` matches the whole pattern; an unsupported pattern or a literal matches nothing here. */
export function patternMatches(compiled: CompiledPattern, name: string): boolean {
  return compiled.kind === "pattern" && name.length <= MAX_NAME_CHARS && run(compiled.program, name);
}

function compile(source: string): CompiledPattern {
  if (source.length > MAX_PATTERN_CHARS) return { kind: "unsupported", reason: `longer than ${MAX_PATTERN_CHARS} characters` };
  try {
    new RegExp(source); // syntax only: compiling is cheap, running is what backtracks
  } catch {
    return { kind: "literal" };
  }
  try {
    const node = new Parser(source).parse();
    if (size(node) > MAX_PROGRAM) throw new Unsupported(`more than ${MAX_PROGRAM} steps once its repetitions are expanded`);
    const program: Inst[] = [];
    emit(node, program);
    program.push({ op: "match" });
    return { kind: "pattern", program };
  } catch (err) {
    if (err instanceof Unsupported) return { kind: "unsupported", reason: err.message };
    throw err;
  }
}

/** A recursive-descent parser; nesting is bounded by MAX_PATTERN_CHARS. */
class Parser {
  private at = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.s.length) throw new Unsupported(`an unbalanced ')' at ${this.at}`);
    return node;
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.s[this.at] === "|") {
      this.at++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0] : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.s.length && this.s[this.at] !== "|" && this.s[this.at] !== ")") items.push(this.quantified());
    return { t: "cat", items };
  }

  private quantified(): Node {
    const item = this.atom();
    const q = this.quantifier();
    if (!q) return item;
    if (item.t === "start" || item.t === "end") throw new Unsupported("a quantified ^ or $");
    if (this.s[this.at] === "?") this.at++; // lazy: the same set of full matches
    return { t: "rep", item, min: q.min, max: q.max };
  }

  private quantifier(): { min: number; max: number } | null {
    const ch = this.s[this.at];
    if (ch === "*") {
      this.at++;
      return { min: 0, max: Infinity };
    }
    if (ch === "+") {
      this.at++;
      return { min: 1, max: Infinity };
    }
    if (ch === "?") {
      this.at++;
      return { min: 0, max: 1 };
    }
    const counted = ch === "{" ? /^\{([0-9]+)(,([0-9]*))?\}/.exec(this.s.slice(this.at, this.at + 24)) : null;
    if (!counted) return null; // a `{` that is no count is a literal (RegExp's own rule without the u flag)
    const min = Number(counted[1]);
    const max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
    if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) throw new Unsupported(`a repetition count above ${MAX_COUNT}`);
    this.at += counted[0].length;
    return { min, max };
  }

  private atom(): Node {
    const s = this.s;
    const ch = s[this.at];
    if (ch === "(") return this.group();
    if (ch === "^") {
      this.at++;
      return { t: "start" };
    }
    if (ch === "$") {
      this.at++;
      return { t: "end" };
    }
    if (ch === "[") return this.charClass();
    if (ch === "\\") return this.escape();
    if (ch === "*" || ch === "+" || ch === "?") throw new Unsupported(`nothing to repeat at ${this.at}`);
    this.at++;
    return ch === "." ? { t: "char", test: oneChar(".") } : { t: "char", test: (c) => c === ch };
  }

  private group(): Node {
    const s = this.s;
    if (s.startsWith("(?:", this.at)) this.at += 3;
    else if (s.startsWith("(?<", this.at) && s[this.at + 3] !== "=" && s[this.at + 3] !== "!") {
      const close = s.indexOf(">", this.at);
      if (close < 0) throw new Unsupported("an unfinished group name");
      this.at = close + 1;
    } else if (s.startsWith("(?", this.at)) throw new Unsupported("a lookahead or lookbehind");
    else this.at++;
    const inner = this.alternation();
    if (s[this.at] !== ")") throw new Unsupported("an unclosed group");
    this.at++;
    return inner;
  }

  /** JS classes do not nest and end at the first unescaped `]` (`[]` is empty); V8 tests the one character. */
  private charClass(): Node {
    const s = this.s;
    let end = this.at + 1;
    if (s[end] === "^") end++;
    while (end < s.length && s[end] !== "]") end += s[end] === "\\" ? 2 : 1;
    if (end >= s.length) throw new Unsupported("an unclosed class");
    const source = s.slice(this.at, end + 1);
    this.at = end + 1;
    return { t: "char", test: oneChar(source) };
  }

  private escape(): Node {
    const s = this.s;
    const next = s[this.at + 1] ?? "";
    let length = 2;
    if (/[dDwWsStnrfv]/.test(next)) length = 2;
    else if (next === "0" && !/[0-9]/.test(s[this.at + 2] ?? "")) length = 2;
    else if (next === "x" && /^[0-9A-Fa-f]{2}$/.test(s.slice(this.at + 2, this.at + 4))) length = 4;
    else if (next === "u" && /^[0-9A-Fa-f]{4}$/.test(s.slice(this.at + 2, this.at + 6))) length = 6;
    else if (/[1-9]/.test(next)) throw new Unsupported("a backreference");
    else if (next === "b" || next === "B") throw new Unsupported("a word boundary (\\b, \\B)");
    else if (next === "" || /[0-9A-Za-z]/.test(next)) throw new Unsupported(`the escape \\${next}`);
    const source = s.slice(this.at, this.at + length);
    this.at += length;
    return { t: "char", test: oneChar(source) };
  }
}

/** One character against an atom's own source, by V8: an atom without quantifiers matches one code unit. */
function oneChar(source: string): Test {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${source})$`);
  } catch {
    throw new Unsupported(`'${source}'`);
  }
  return (c) => re.test(c);
}

/** Instructions a node compiles to (without building them: counts multiply). */
function size(node: Node): number {
  switch (node.t) {
    case "char":
    case "start":
    case "end":
      return 1;
    case "cat":
      return node.items.reduce((n, i) => n + size(i), 0);
    case "alt":
      return node.items.reduce((n, i) => n + size(i) + 2, 0);
    case "rep": {
      const copies = node.max === Infinity ? node.min + 1 : node.max;
      return copies * (size(node.item) + 2);
    }
  }
}

function emit(node: Node, out: Inst[]): void {
  switch (node.t) {
    case "char":
      out.push({ op: "char", test: node.test });
      return;
    case "start":
      out.push({ op: "start" });
      return;
    case "end":
      out.push({ op: "end" });
      return;
    case "cat":
      for (const i of node.items) emit(i, out);
      return;
    case "alt": {
      const jumps: { op: "jmp"; to: number }[] = [];
      node.items.forEach((item, k) => {
        if (k === node.items.length - 1) {
          emit(item, out);
          return;
        }
        const split: Inst = { op: "split", x: out.length + 1, y: -1 };
        out.push(split);
        emit(item, out);
        const jump = { op: "jmp" as const, to: -1 };
        out.push(jump);
        jumps.push(jump);
        split.y = out.length;
      });
      for (const j of jumps) j.to = out.length;
      return;
    }
    case "rep": {
      for (let k = 0; k < node.min; k++) emit(node.item, out);
      if (node.max === Infinity) {
        const loop = out.length;
        const split: Inst = { op: "split", x: loop + 1, y: -1 };
        out.push(split);
        emit(node.item, out);
        out.push({ op: "jmp", to: loop });
        split.y = out.length;
        return;
      }
      const splits: { op: "split"; x: number; y: number }[] = [];
      for (let k = node.min; k < node.max; k++) {
        const split = { op: "split" as const, x: out.length + 1, y: -1 };
        out.push(split);
        splits.push(split);
        emit(node.item, out);
      }
      for (const sp of splits) sp.y = out.length;
      return;
    }
  }
}

/** Thompson's simulation: the set of live states advances one character at a time, each state at most once. */
function run(program: Inst[], name: string): boolean {
  const seen = new Int32Array(program.length).fill(-1);
  const stack: number[] = [];
  let current: number[] = [];
  let next: number[] = [];
  const add = (list: number[], from: number, pos: number, generation: number): void => {
    stack.push(from);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen[pc] === generation) continue;
      seen[pc] = generation;
      const inst = program[pc];
      switch (inst.op) {
        case "jmp":
          stack.push(inst.to);
          break;
        case "split":
          stack.push(inst.y, inst.x);
          break;
        case "start":
          if (pos === 0) stack.push(pc + 1);
          break;
        case "end":
          if (pos === name.length) stack.push(pc + 1);
          break;
        default:
          list.push(pc);
      }
    }
  };
  add(current, 0, 0, 0);
  for (let pos = 0; pos < name.length && current.length > 0; pos++) {
    const ch = name[pos];
    next.length = 0;
    for (const pc of current) {
      const inst = program[pc];
      if (inst.op === "char" && inst.test(ch)) add(next, pc + 1, pos + 1, pos + 1);
    }
    [current, next] = [next, current];
  }
  return current.some((pc) => program[pc].op === "match");
}
