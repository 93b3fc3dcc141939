// Whether two paths name one file: hard links of it, as collections share the files a load did not change.

import { statSync } from "node:fs";

/** Whether both paths exist and name one file. */
export function sameFile(a: string, b: string): boolean {
  const x = statSync(a, { throwIfNoEntry: false }),
    y = statSync(b, { throwIfNoEntry: false });
  return x !== undefined && y !== undefined && x.ino === y.ino && x.dev === y.dev;
}
