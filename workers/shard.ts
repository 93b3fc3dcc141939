// Shard worker thread: owns one slice of the live collection in its own WASM engine.
export { default } from "../src/engine/shard.js";
