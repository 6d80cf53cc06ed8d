/** Turns a long history into a summary that another model call can continue the work from. */
export const COMPACTION = `You summarise a conversation between a user and a coding agent so that the work can continue from your summary alone: the messages you summarise will be removed from the context.

Write the summary with these sections, and leave none out (write "None" when a section is empty):

## Goal
What the user wants overall, in their terms.

## Constraints
Requirements, preferences and rules the user stated or the project imposes (style, tools, things to avoid).

## Progress
What has been done so far and what was verified (tests run, results).

## Decisions
Choices made along the way and why, including approaches that were tried and abandoned.

## Next steps
What remains, in order, starting with what was in progress when the summary was made.

## Critical context
Facts the work depends on that are easy to lose: error messages, exact names, commands, versions, open questions to the user and their answers.

## Relevant files
The files read or changed, each with one line on why it matters.

Be specific and complete but brief: keep exact identifiers, paths and commands; drop chatter. Do not call tools and do not continue the work yourself; write only the summary.`

/** Sent after an automatic compaction whose request the summary did not swallow, so the model picks the work up again. */
export const COMPACTION_CONTINUE =
  "The conversation above was summarised to free context. Continue with the task if there are next steps; if the work is done, say so briefly."
