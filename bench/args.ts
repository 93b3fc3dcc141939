// Minimal `--name value` command-line parsing shared by the bench CLIs.

import path from "node:path";
import { pathToFileURL } from "node:url";

export class Args {
  private readonly values = new Map<string, string>();
  private readonly flags = new Set<string>();

  constructor(argv: readonly string[], booleanFlags: readonly string[] = []) {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (!a.startsWith("--")) throw new Error(`unexpected argument: ${a}`);
      const eq = a.indexOf("=");
      const key = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) this.values.set(key, a.slice(eq + 1));
      else if (booleanFlags.includes(key)) this.flags.add(key);
      else {
        const v = argv[i + 1];
        if (v === undefined) throw new Error(`missing value for --${key}`);
        this.values.set(key, v);
        i++;
      }
    }
  }

  string(key: string): string | undefined {
    return this.values.get(key);
  }

  requireString(key: string): string {
    const v = this.values.get(key);
    if (v === undefined) throw new Error(`--${key} is required`);
    return v;
  }

  /** Integer option; accepts 1_000_000, 1e6 and 1000000. */
  int(key: string, fallback: number): number {
    const v = this.values.get(key);
    if (v === undefined) return fallback;
    const n = Number(v.replace(/_/g, ""));
    if (!Number.isFinite(n) || !Number.isInteger(n)) throw new Error(`--${key} must be an integer, got ${v}`);
    return n;
  }

  number(key: string, fallback: number): number {
    const v = this.values.get(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`--${key} must be a number, got ${v}`);
    return n;
  }

  flag(key: string): boolean {
    return this.flags.has(key);
  }
}

/** True when the module at `importMetaUrl` is the script node was started with. */
export function isMain(importMetaUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && importMetaUrl === pathToFileURL(path.resolve(script)).href;
}

/** A build of the server to measure: a checkout whose dist/ holds it, and its label in the tables. */
export interface Build {
  readonly label: string;
  readonly dir: string;
}

/** `--builds label=DIR,label=DIR`, else `--server-dir DIR [--label L]`, else `repo` itself. */
export function buildList(args: Args, repo: string): Build[] {
  const list = args.string("builds");
  if (list !== undefined) {
    return list.split(",").map((spec) => {
      const eq = spec.indexOf("=");
      if (eq <= 0) throw new Error(`--builds wants label=DIR,label=DIR; got ${spec}`);
      return { label: spec.slice(0, eq), dir: path.resolve(spec.slice(eq + 1)) };
    });
  }
  const dir = path.resolve(args.string("server-dir") ?? repo);
  return [{ label: args.string("label") ?? path.basename(dir), dir }];
}
