// The uploads this process is receiving (the keyed API's import), or has received and not yet
// handed to a load. The reloader's cleaning of <data-dir>/downloads leaves them alone whatever
// their age: a file's mtime says nothing about whether it is still arriving, and a wall-clock
// step made a live upload look a day old. An upload file not in this set is one an earlier run
// left half-written.

import { resolve } from "node:path";

const held = new Set<string>();

export const uploadsInProgress = {
  hold(path: string): void {
    held.add(resolve(path));
  },
  /** the upload took its final name */
  renamed(from: string, to: string): void {
    held.delete(resolve(from));
    held.add(resolve(to));
  },
  release(path: string): void {
    held.delete(resolve(path));
  },
  has(path: string): boolean {
    return held.has(resolve(path));
  },
};
