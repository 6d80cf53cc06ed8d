import type { ModelMessage } from "ai"
import type { WithParts } from "../message/info.js"
import { messageToModelMessages, type TargetModel } from "../message/to-model-messages.js"

/**
 * The history as model messages, each stored message converted once for a given target model
 * and kept while the run holds it: a step converts only what is new, and hands the same message
 * objects to the model call again, whose own conversion is kept by object too. A run's history
 * never changes a message in place (a changed message is a new object), which is what makes
 * keeping by object sound.
 */
export function createPromptCache() {
  const cache = new WeakMap<WithParts, { target: string; messages: ModelMessage[] }>()
  return async (history: readonly WithParts[], model: TargetModel): Promise<ModelMessage[]> => {
    const target = `${model.providerID}\n${model.id}\n${model.capabilities?.attachment === true}`
    const messages: ModelMessage[] = []
    for (const message of history) {
      let entry = cache.get(message)
      if (entry?.target !== target) {
        entry = { target, messages: await messageToModelMessages(message, model) }
        cache.set(message, entry)
      }
      for (const converted of entry.messages) messages.push(converted)
    }
    return messages
  }
}

export type PromptCache = ReturnType<typeof createPromptCache>
