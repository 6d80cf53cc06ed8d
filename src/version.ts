/** The package version, stamped on every session this library creates. */
export const VERSION = "0.1.0"
