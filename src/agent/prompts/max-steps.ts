/** Added to the last call an agent's step limit allows, so the turn ends with an answer rather than a tool call. */
export const MAX_STEPS = `You have reached the maximum number of steps for this turn, and tools are now disabled. Do not call any tool. Reply with text only:
- what you accomplished,
- what remains to be done,
- what you would do next.`
