// ISO 17442 LEIs: 18 upper-case letters or digits, then two check digits such that the whole
// code, read as a number with A=10 ... Z=35, is 1 modulo 97 (ISO 7064 MOD 97-10).

export const LEI_FORM = /^[0-9A-Z]{18}[0-9]{2}$/;

export function hasLeiForm(code: string): boolean {
  return LEI_FORM.test(code);
}

export function checkDigitsValid(code: string): boolean {
  let remainder = 0;
  for (const ch of code) {
    const c = ch.charCodeAt(0);
    const value = c <= 57 ? c - 48 : c - 55;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}
