/** The call a failed tool was running, as the host's `onToolError` gets it. */
export type ToolErrorContext = {
  sessionID: string
  messageID: string
  callID: string
  /** The tool's id. */
  tool: string
  /** The arguments as the model sent them, before validation. */
  input: unknown
}

/**
 * Gets each error a tool call ends with, as thrown (stack included); see RuntimeOptions.onToolError.
 * What it returns is ignored, except a promise, whose rejection is logged like a throw.
 */
export type ToolErrorHandler = (error: unknown, context: ToolErrorContext) => unknown

/** The longest error message the model is sent; what is longer is cut, with a note. */
export const MAX_ERROR_LENGTH = 4_000

/**
 * What the model (and the stored part) is told of a failed call: an error's message, or its name
 * when it has none, never its stack; a string as it is; anything else as JSON. Messages and strings
 * are cut at `MAX_ERROR_LENGTH` characters: some errors carry a whole response body.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return cut(error.message || error.name)
  if (typeof error === "string") return cut(error)
  return JSON.stringify(error) ?? String(error)
}

function cut(message: string): string {
  if (message.length <= MAX_ERROR_LENGTH) return message
  const end = isHighSurrogate(message.charCodeAt(MAX_ERROR_LENGTH - 1))
    ? MAX_ERROR_LENGTH - 1
    : MAX_ERROR_LENGTH
  const kept = message.slice(0, end)
  return `${kept}\n[Error message truncated: ${message.length - kept.length} more characters]`
}

/** The first half of a character outside the BMP (an emoji): a cut must not split the pair. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/**
 * Hands a tool's error to the host's handler without waiting for it: a handler that throws or
 * rejects is reported on the console, as a failing event listener is, and the turn goes on.
 */
export function reportToolError(handler: ToolErrorHandler, error: unknown, context: ToolErrorContext): void {
  const failed = (failure: unknown) => console.error("agentloop: onToolError threw", failure)
  try {
    const result = handler(error, context)
    if (result instanceof Promise) result.catch(failed)
  } catch (failure) {
    failed(failure)
  }
}
