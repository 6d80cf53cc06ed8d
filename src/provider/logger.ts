/**
 * Where the runtime says what a host may want to know but need not act on (a model the
 * catalogue does not know, say). Default: `console`, which a CLI's user would see; a host
 * routes it to its own log, or drops it with `{ warn() {} }`.
 */
export type Logger = {
  warn(message: string): void
}

/** The logger used when the host gives none. */
export const consoleLogger: Logger = { warn: (message) => console.warn(message) }
