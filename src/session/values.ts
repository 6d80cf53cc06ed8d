/**
 * The key-value entries that belong to one session (its to-do list, an unfinished revert's
 * file work): removed with the session, so that nothing outlives it.
 */
export const todoKey = (sessionID: string) => `todo/${sessionID}`
export const revertKey = (sessionID: string) => `revert/${sessionID}`

export function sessionValueKeys(sessionID: string): string[] {
  return [todoKey(sessionID), revertKey(sessionID)]
}
