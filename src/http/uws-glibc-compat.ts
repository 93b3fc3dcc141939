// uWebSockets.js 20.57's Linux binaries are linked against glibc 2.38, where C23 renamed a few
// parsing functions (__isoc23_strtol & co.). On an older glibc (Debian 12 has 2.36) the addon
// fails to load for those few symbols alone. This makes a copy of the addon whose references to
// them name the pre-C23 functions (same behaviour except for "0b" prefixes, which uWS never
// parses) and whose need for the newer glibc version is marked weak. Any other symbol from a
// newer glibc is refused: then the copy would not be equivalent.

const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const VER_FLG_WEAK = 0x2;
const VER_NDX_GLOBAL = 1;

/** C23 names and the pre-C23 functions that behave the same for uWS's inputs. */
const PRE_C23: Record<string, string> = {
  __isoc23_strtol: "strtol",
  __isoc23_strtoul: "strtoul",
  __isoc23_strtoll: "strtoll",
  __isoc23_strtoull: "strtoull",
  __isoc23_sscanf: "__isoc99_sscanf",
  __isoc23_vsscanf: "__isoc99_vsscanf",
};

interface Section {
  type: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

/** "GLIBC_2.38" > "2.36"? */
function newerThan(versionName: string, runtime: string): boolean {
  const m = /^GLIBC_(\d+)\.(\d+)/.exec(versionName);
  if (!m) return false;
  const [major, minor] = runtime.split(".").map(Number);
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) > minor);
}

function cString(buf: Buffer, offset: number): string {
  const end = buf.indexOf(0, offset);
  return buf.toString("latin1", offset, end);
}

/**
 * A copy of the ELF64 addon `original` that loads on glibc `runtime` ("2.36"). Throws when the
 * addon needs anything else from a newer glibc.
 */
export function glibcCompatCopy(original: Uint8Array, runtime: string): Buffer {
  const elf = Buffer.from(original);
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) throw new Error("not a little-endian ELF64 file");
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const shentsize = elf.readUInt16LE(0x3a);
  const shnum = elf.readUInt16LE(0x3c);
  const sections: Section[] = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    sections.push({
      type: elf.readUInt32LE(at + 4),
      offset: Number(elf.readBigUInt64LE(at + 0x18)),
      size: Number(elf.readBigUInt64LE(at + 0x20)),
      link: elf.readUInt32LE(at + 0x28),
      entsize: Number(elf.readBigUInt64LE(at + 0x38)),
    });
  }
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);
  const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
  if (!dynsym || !versym || !verneed) throw new Error("no dynamic symbol versions to adapt");
  const dynstr = sections[dynsym.link];

  // version indexes the running glibc lacks; their requirement becomes weak
  const tooNew = new Set<number>();
  for (let need = verneed.offset, more = true; more;) {
    const count = elf.readUInt16LE(need + 2);
    let aux = need + elf.readUInt32LE(need + 8);
    for (let i = 0; i < count; i++) {
      const name = cString(elf, dynstr.offset + elf.readUInt32LE(aux + 8));
      if (newerThan(name, runtime)) {
        tooNew.add(elf.readUInt16LE(aux + 6));
        elf.writeUInt16LE(elf.readUInt16LE(aux + 4) | VER_FLG_WEAK, aux + 4);
      }
      aux += elf.readUInt32LE(aux + 12);
    }
    const next = elf.readUInt32LE(need + 12);
    more = next !== 0;
    need += next;
  }

  const symbols = dynsym.size / dynsym.entsize;
  const nameOffsets: number[] = [];
  for (let i = 0; i < symbols; i++) nameOffsets.push(elf.readUInt32LE(dynsym.offset + i * dynsym.entsize));
  for (let i = 0; i < symbols; i++) {
    const versionAt = versym.offset + i * 2;
    if (!tooNew.has(elf.readUInt16LE(versionAt) & 0x7fff)) continue;
    const name = cString(elf, dynstr.offset + nameOffsets[i]);
    const older = PRE_C23[name];
    if (older === undefined) throw new Error(`${name} needs a newer glibc than ${runtime}`);
    // the shorter name is written over the start of the old one; no other name may start inside it
    const start = nameOffsets[i];
    if (nameOffsets.some((o) => o > start && o <= start + older.length)) throw new Error(`${name} shares its bytes with another symbol`);
    elf.write(`${older}\0`, dynstr.offset + start, "latin1");
    elf.writeUInt16LE(VER_NDX_GLOBAL, versionAt);
  }
  return elf;
}
