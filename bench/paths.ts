// Where the bench finds the repository, its output folder and the server, from dist/bench/
// (compiled) or bench/ (sources).

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");
export const OUT = path.join(REPO, "bench", "out");
export const SERVER_MAIN = path.join(REPO, "dist", "src", "main.js");
