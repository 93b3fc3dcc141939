// Text analysis shared by indexing and querying, so both sides always agree on what a term is.
// NFKC (full-width ＪＦＥ becomes jfe), case-fold, diacritics stripped from Latin/Greek/Cyrillic,
// a few letters that do not decompose folded by hand, runs of single letters joined (S.R.L. and
// SRL, A/S and AS), and Han/kana runs cut into overlapping bigrams so a few characters find a name.

const LETTER_FOLDS: Record<string, string> = {
  "ł": "l", "ø": "o", "đ": "d", "ð": "d", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th", "ı": "i", "ħ": "h", "ς": "σ",
};
const FOLD_RE = /[łøđðßæœþıħς]/g;
const MARK_AFTER_RE = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{M}+/gu;
const TOKEN_RE = /[\p{L}\p{N}\p{M}]+/gu;
const BIGRAM_SCRIPT_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u;
const SCRIPT_RUN_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;

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

