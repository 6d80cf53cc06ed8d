const marker = Symbol.for("agentloop.named-error")

/**
 * A named error as plain JSON, `{ name, data }`: what `toObject()` returns and what stored
 * messages and the server carry.
 */
export type SerializedError<Name extends string = string, Data = unknown> = { name: Name; data: Data }

/**
 * Base of every error agentloop throws or stores. `isInstance` checks a global symbol and the
 * name instead of `instanceof`, so it works when the host ends up with two copies of the package.
 */
export abstract class NamedError<Name extends string = string, Data extends object = object> extends Error {
  readonly [marker] = true
  declare readonly name: Name
  readonly data: Data

  constructor(data: Data, options?: { cause?: unknown }) {
    super(messageOf(data), options)
    this.data = data
    this.name = (new.target as unknown as { errorName: Name }).errorName
  }

  toObject(): SerializedError<Name, Data> {
    return { name: this.name, data: this.data }
  }

  static readonly errorName: string = "NamedError"

  static isInstance<T extends NamedErrorClass>(this: T, value: unknown): value is InstanceType<T> {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass isInstance was called on
    return isNamedError(value) && value.name === this.errorName
  }
}

export type NamedErrorClass = (abstract new (
  ...args: never[]
) => NamedError<string, object>) & { errorName: string }

/**
 * Whether a value is a `NamedError` of any name, from any copy of the package. Use it before
 * reading `name` and `data` off an unknown error.
 */
export function isNamedError(value: unknown): value is NamedError<string, object> {
  return typeof value === "object" && value !== null && (value as { [marker]?: unknown })[marker] === true
}

function messageOf(data: object): string {
  const message = (data as { message?: unknown }).message
  return typeof message === "string" ? message : ""
}
