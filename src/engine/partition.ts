// Which slice owns an LEI: FNV-1a over the upper-cased LEI, so the loader and lookups agree.

export function sliceOf(lei: string, slices: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < lei.length; i++) {
    let c = lei.charCodeAt(i);
    if (c >= 97 && c <= 122) c -= 32;
    h ^= c;
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % slices;
}
