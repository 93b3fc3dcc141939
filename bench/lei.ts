// ISO 17442 check digits (ISO 7064 MOD 97-10), kept local to bench/ so the
// generator does not depend on the server's own implementation it is testing.

/** Remainder mod 97 of the digit string obtained by replacing A..Z with 10..35. */
function mod97(text: string): number {
  let r = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) r = (r * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) r = (r * 100 + (c - 55)) % 97;
    else return -1;
  }
  return r;
}

/** The two check digits for an 18-character LEI body. */
export function leiCheckDigits(body18: string): string {
  if (body18.length !== 18) throw new Error(`LEI body must be 18 characters: ${body18}`);
  const r = mod97(body18 + "00");
  if (r < 0) throw new Error(`LEI body has characters outside 0-9A-Z: ${body18}`);
  const check = 98 - r;
  return check < 10 ? `0${check}` : String(check);
}

export function isValidLei(lei: string): boolean {
  return lei.length === 20 && /^[0-9A-Z]{18}[0-9]{2}$/.test(lei) && mod97(lei) === 1;
}
