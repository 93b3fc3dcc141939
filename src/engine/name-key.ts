// The exact-name key: a name's terms (tokenize(), so case, NFKC width, diacritics, punctuation
// and spaces are already folded away) run together and hashed to 64 bits, as two 32-bit halves.
// A query whose key equals a name's key is that name, pasted: the engine ranks it first. Both
// halves must agree, so a false match among a slice's few million names is ~1 in 10^12.

export interface NameKey {
  hi: number;
  lo: number;
}

const FNV_OFFSET = 0x811c9dc5,
  FNV_PRIME = 0x01000193;
const MIX_SEED = 0x9e3779b9,
  MIX_PRIME = 0x5bd1e995;

/** Hashes a term stream one UTF-16 code unit at a time (for ASCII, the bytes themselves). */
export class NameKeyHasher {
  private hi = FNV_OFFSET;
  private lo = MIX_SEED;

  reset(): void {
    this.hi = FNV_OFFSET;
    this.lo = MIX_SEED;
  }

  unit(c: number): void {
    this.hi = Math.imul(this.hi ^ c, FNV_PRIME);
    const m = Math.imul(this.lo ^ c, MIX_PRIME);
    this.lo = m ^ (m >>> 15);
  }

  bytes(bytes: Uint8Array, from: number, to: number): void {
    for (let i = from; i < to; i++) this.unit(bytes[i]);
  }

  text(s: string): void {
    for (let i = 0; i < s.length; i++) this.unit(s.charCodeAt(i));
  }

  key(): NameKey {
    return { hi: this.hi >>> 0, lo: this.lo >>> 0 };
  }
}

/** The key of a name or a query already split into terms; null when it has none. */
export function nameKeyOf(terms: readonly string[]): NameKey | null {
  if (terms.length === 0) return null;
  const h = new NameKeyHasher();
  for (const t of terms) h.text(t);
  return h.key();
}
