/** Summarises what a conversation did, for showing it in a list or a review. */
export const SUMMARY = `Summarise what was done in this conversation, as the description of a change someone will review.

- Two to four sentences, in the same language as the user.
- Say what was changed or found and why; mention the most important files.
- Write in the first person plural or in a neutral voice ("Fixed…", "Added…"), never "the assistant" or "the user".
- No lists of tool calls, no greetings, no questions, no Markdown headings.
- If nothing was changed, say what was answered or investigated.`
