// A reason the server refuses to start that the operator can act on: main() prints its message
// as one line on stderr and exits 1, without a stack trace.

export class StartupError extends Error {}
