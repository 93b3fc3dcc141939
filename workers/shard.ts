// Shard worker thread: owns one slice of the live collection in its own WASM engine.
import { yieldToFront } from "../src/os/thread-priority.js";

yieldToFront();
export { default } from "../src/engine/shard.js";
