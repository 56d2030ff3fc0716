/** A connection that carries no byte (not even a `: ping`, sent at least every 15 s) this long is dead. */
export const STREAM_IDLE_MS = 45_000
