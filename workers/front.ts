// Front thread: a uWS app of its own that answers lookups and searches and relays the rest to
// the main thread (src/front-thread.ts). It keeps the process's priority: it is the front.
import "../src/front-thread.js";
