import type { WithParts } from "../message/info.js"
import { isDefaultTitle } from "../session/title.js"
import { createAbortGroup } from "../util/abort-group.js"
import { generateTitle } from "./generate-title.js"
import type { LoopDeps } from "./loop-deps.js"

/**
 * Titles of new top-level sessions, written by the hidden `title` agent on the small model
 * (the default model only when the host asked for titles) without holding up the loop. `closing` stops them; a failure keeps the default title.
 */
export function createTitles(deps: LoopDeps, closing: AbortSignal) {
  const titles = new Map<string, Promise<void>>()
  // Each title its own signal: the model call adds listeners to the one it gets.
  const closed = createAbortGroup(closing)
  return {
    start(sessionID: string, message: WithParts): void {
      const text = message.parts
        .flatMap((part) => (part.type === "text" && !part.synthetic && !part.ignored ? [part.text] : []))
        .join("\n")
      const agent = deps.agents.title
      if (titles.has(sessionID) || !text.trim() || !agent || !deps.provider || deps.titles === false) return
      const model = deps.provider.smallModel() ?? (deps.titles ? deps.provider.defaultModel() : undefined)
      if (!model) return
      const call = closed.join()
      const task = generateTitle({ model: model.language, agent, text, abort: call.controller.signal })
        .then(async (title) => {
          const current = await deps.session.get(sessionID)
          if (title && isDefaultTitle(current.title)) await deps.session.update(sessionID, { title })
        })
        .catch(() => undefined)
        .finally(() => {
          call.leave()
          titles.delete(sessionID)
        })
      titles.set(sessionID, task)
    },
    /** Resolves when every title being written has settled. */
    async settled(): Promise<void> {
      await Promise.allSettled(titles.values())
    },
  }
}
