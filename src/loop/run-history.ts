import { compactionPart, filterCompacted } from "../message/filter-compacted.js"
import type { WithParts } from "../message/info.js"

/**
 * A run's history (oldest first), changed only through these functions, with what each step
 * reads of it kept up to date as it grows: what the model sees (`filterCompacted`) and the latest
 * user message. A step mostly appends, and an append costs what it adds, so a long session costs
 * no more per step than a short one. After a removal, a replacement, or the append of a message
 * that takes part in a compaction, both are worked out again from the whole history.
 *
 * `visible()` hands out a list that only grows: appends extend it in place, and any other change
 * starts a new list, so a caller may key what it derived from the list on the list itself and
 * its length (the prompt cache does).
 */
export function trackHistory(messages: WithParts[]) {
  let visible: WithParts[] | undefined
  // How many of the messages `visible` accounts for.
  let seen = 0
  let user: WithParts | undefined
  let userKnown = false

  const changed = () => {
    visible = undefined
    userKnown = false
  }

  return {
    /** The history itself: the list given, changed in place. */
    messages: messages as readonly WithParts[],
    append(...added: WithParts[]): void {
      messages.push(...added)
      if (!userKnown) return
      for (const message of added) if (message.info.role === "user") user = message
    },
    remove(message: WithParts): void {
      const index = messages.indexOf(message)
      if (index === -1) return
      messages.splice(index, 1)
      changed()
    },
    replace(message: WithParts, by: WithParts): void {
      const index = messages.indexOf(message)
      if (index === -1) return
      messages[index] = by
      changed()
    },
    /** What the model sees, as `filterCompacted` gives it; read it, never change it. */
    visible(): WithParts[] {
      let plain = visible !== undefined
      for (let index = seen; plain && index < messages.length; index++) plain = isPlain(messages[index]!)
      if (visible !== undefined && plain) {
        for (; seen < messages.length; seen++) visible.push(messages[seen]!)
        return visible
      }
      visible = filterCompacted(messages)
      seen = messages.length
      return visible
    },
    latestUser(): WithParts | undefined {
      if (!userKnown) {
        user = messages.findLast((message) => message.info.role === "user")
        userKnown = true
      }
      return user
    },
  }
}

export type RunHistory = ReturnType<typeof trackHistory>

/**
 * A message that plays no part in compaction (neither a request nor a summary, done or failed):
 * `filterCompacted` of a history plus such messages is its result for the history, plus them.
 */
function isPlain(message: WithParts): boolean {
  const { info } = message
  return !(info.role === "assistant" && info.summary === true) && compactionPart(message) === undefined
}
