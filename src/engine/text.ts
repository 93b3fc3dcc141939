// Text analysis shared by indexing and querying, so both sides always agree on what a term is.
// NFKC (full-width ＪＦＥ becomes jfe), case-fold, diacritics stripped from Latin/Greek/Cyrillic,
// a few letters that do not decompose folded by hand, runs of single letters joined (S.R.L. and
// SRL, A/S and AS), and Han/kana runs cut into overlapping bigrams so a few characters find a name.

const LETTER_FOLDS: Record<string, string> = {
  ł: "l",
  ø: "o",
  đ: "d",
  ð: "d",
  ß: "ss",
  æ: "ae",
  œ: "oe",
  þ: "th",
  ı: "i",
  ħ: "h",
  ς: "σ",
};
const FOLD_RE = /[łøđðßæœþıħς]/g;
const MARK_AFTER_RE = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{M}+/gu;
const TOKEN_RE = /[\p{L}\p{N}\p{M}]+/gu;
const BIGRAM_SCRIPT_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u;
const SCRIPT_RUN_RE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;

const ASCII_RE = /^[\x00-\x7f]*$/;
const ASCII_TOKEN_RE = /[a-z0-9]+/g;

export function foldText(text: string): string {
  if (ASCII_RE.test(text)) return text.toLowerCase(); // NFKC and mark folding are identities here
  return text
    .normalize("NFKC")
    .toLowerCase()
    .normalize("NFD")
    .replace(MARK_AFTER_RE, "$1")
    .normalize("NFC")
    .replace(FOLD_RE, (ch) => LETTER_FOLDS[ch] ?? ch);
}

/** Terms of a text in order; the index of a term is its position. */
export function tokenize(text: string): string[] {
  const ascii = ASCII_RE.test(text);
  const words = ascii ? text.toLowerCase().match(ASCII_TOKEN_RE) : foldText(text).match(TOKEN_RE);
  if (!words) return [];
  const out: string[] = [];
  let singles = "";
  const flushSingles = (): void => {
    if (singles.length > 0) out.push(singles);
    singles = "";
  };
  for (const word of words) {
    if (!ascii && BIGRAM_SCRIPT_RE.test(word)) {
      flushSingles();
      for (const run of word.match(SCRIPT_RUN_RE) ?? []) {
        if (BIGRAM_SCRIPT_RE.test(run)) pushBigrams(run, out);
        else out.push(run);
      }
      continue;
    }
    if (ascii ? word.length === 1 && word >= "a" : [...word].length === 1 && /\p{L}/u.test(word)) {
      singles += word;
      continue;
    }
    flushSingles();
    out.push(word);
  }
  flushSingles();
  return out;
}

function pushBigrams(run: string, out: string[]): void {
  const chars = [...run];
  if (chars.length === 1) {
    out.push(run);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}

/** Typo budget by token length: none under 4 characters, 1 up to 7, then 2. */
export function typoBudget(term: string): number {
  const length = [...term].length;
  if (length < 4 || BIGRAM_SCRIPT_RE.test(term)) return 0;
  return length < 8 ? 1 : 2;
}

const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;
const isLetter = (b: number): boolean => (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a;

/** An ASCII byte (or char code) upper-cased; any other left as it is. */
export const upperAscii = (b: number): number => (b >= 0x61 && b <= 0x7a ? b - 0x20 : b);

/**
 * tokenize() for ASCII text given as bytes, without making strings: what the builder runs on
 * most fields. `terms(bytes, start, end)` returns how many terms the text has, or -1 when it is
 * not all ASCII (then tokenize() must do it); term i is out[termStart[i], termStart[i] + termLength[i]).
 */
export class AsciiTerms {
  out = new Uint8Array(256);
  termStart = new Uint32Array(128);
  termLength = new Uint32Array(128);

  terms(bytes: Uint8Array, start: number, end: number): number {
    this.room(end - start);
    const out = this.out,
      termStart = this.termStart,
      termLength = this.termLength;
    let n = 0;
    let o = 0;
    let singles = false; // the last term is a run of single letters, still open
    for (let i = start; i < end;) {
      const b = bytes[i];
      if (b >= 0x80) return -1;
      if (!isDigit(b) && !isLetter(b)) {
        i++;
        continue;
      }
      const wordStart = o;
      let j = i;
      for (; j < end; j++) {
        const c = bytes[j];
        if (isDigit(c)) out[o++] = c;
        else if (isLetter(c)) out[o++] = c | 0x20;
        else break;
      }
      if (j - i === 1 && isLetter(b)) {
        // single letters join into one term (S.R.L. and SRL): this byte went right after the open run
        if (singles) termLength[n - 1]++;
        else {
          termStart[n] = wordStart;
          termLength[n++] = 1;
          singles = true;
        }
      } else {
        termStart[n] = wordStart;
        termLength[n++] = j - i;
        singles = false;
      }
      i = j;
    }
    return n;
  }

  /**
   * The text with only its letters and digits, in lower case, into out[0, n): how a postal code
   * such as SW1A 1AA is also indexed (sw1a1aa). Returns n, or -1 when the text is not all ASCII.
   */
  joined(bytes: Uint8Array, start: number, end: number): number {
    this.room(end - start);
    const out = this.out;
    let n = 0;
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b >= 0x80) return -1;
      if (isDigit(b)) out[n++] = b;
      else if (isLetter(b)) out[n++] = b | 0x20;
    }
    return n;
  }

  private room(bytes: number): void {
    if (bytes <= this.out.length) return;
    this.out = new Uint8Array(bytes);
    this.termStart = new Uint32Array(bytes);
    this.termLength = new Uint32Array(bytes);
  }
}
