import type { ModelMessage } from "ai"
import type { WithParts } from "../message/info.js"
import { messageToModelMessages, type TargetModel } from "../message/to-model-messages.js"
import { startsWith } from "../util/starts-with.js"

type Converted = { target: string; messages: ModelMessage[] }
type Conversation = { target: string; sources: readonly WithParts[]; messages: readonly ModelMessage[] }

/**
 * The history as model messages, each stored message converted once for a given target model
 * and kept while the run holds it: a step converts only what is new, and hands the same message
 * objects to the model call again, whose own conversion is kept by object too. A step whose
 * history starts with the previous step's (the usual case) reuses that list outright. A run's
 * history never changes a message in place (a changed message is a new object), which is what
 * makes keeping by object sound.
 */
export function createPromptCache() {
  const converted = new WeakMap<WithParts, Converted>()
  const conversations = new WeakMap<WithParts, Conversation>()

  const convert = async (message: WithParts, model: TargetModel, target: string) => {
    let entry = converted.get(message)
    if (entry?.target !== target) {
      entry = { target, messages: await messageToModelMessages(message, model) }
      converted.set(message, entry)
    }
    return entry.messages
  }

  return async (history: readonly WithParts[], model: TargetModel): Promise<ModelMessage[]> => {
    const target = `${model.providerID}\n${model.id}\n${model.capabilities?.attachment === true}`
    const first = history[0]
    const known = first === undefined ? undefined : conversations.get(first)
    const reuse = known?.target === target && startsWith(history, known.sources)
    const messages = reuse ? known.messages.slice() : []
    for (let index = reuse ? known.sources.length : 0; index < history.length; index++)
      for (const message of await convert(history[index]!, model, target)) messages.push(message)
    if (first !== undefined)
      conversations.set(first, { target, sources: history.slice(), messages: messages.slice() })
    return messages
  }
}

export type PromptCache = ReturnType<typeof createPromptCache>
