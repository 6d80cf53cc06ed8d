import type { ModelMessage } from "ai"
import type { WithParts } from "../message/info.js"
import { messageToModelMessages, type TargetModel } from "../message/to-model-messages.js"

type Converted = { target: string; messages: ModelMessage[] }

/** The model messages of the first `length` messages of `sources`, the last of which is `last`. */
type Conversation = {
  target: string
  sources: readonly WithParts[]
  length: number
  last: WithParts | undefined
  messages: ModelMessage[]
}

/**
 * The history as model messages, each stored message converted once for a given target model
 * and kept while the run holds it: a step converts only what is new, and hands the same message
 * objects to the model call again, whose own conversion is kept by object too. A run's history
 * never changes a message in place (a changed message is a new object), which is what makes
 * keeping by object sound.
 *
 * A step is given the list of what its model sees, which only grows while the run appends to its
 * history and is a new list after any other change (see trackHistory), so the same list again
 * costs only what was appended to it, however long the session. A new list whose first messages
 * are those of the latest list of the same conversation (keyed by its first message) reuses
 * their conversion after comparing them. Each call hands out a list of its own.
 */
export function createPromptCache() {
  const converted = new WeakMap<WithParts, Converted>()
  const byList = new WeakMap<readonly WithParts[], Conversation>()
  const byFirst = new WeakMap<WithParts, Conversation>()

  const convert = async (message: WithParts, model: TargetModel, target: string) => {
    let entry = converted.get(message)
    if (entry?.target !== target) {
      entry = { target, messages: await messageToModelMessages(message, model) }
      converted.set(message, entry)
    }
    return entry.messages
  }

  /** The conversation `history` goes on with, if any. */
  const continued = (history: readonly WithParts[], target: string): Conversation | undefined => {
    const same = byList.get(history)
    if (same?.target === target && grewFrom(history, same)) return same
    const first = history[0]
    const known = first === undefined ? undefined : byFirst.get(first)
    // A list changed in place is not compared with what it held: it may be what changed.
    if (known?.target !== target || known.sources === history || !grewFrom(known.sources, known))
      return undefined
    for (let index = 0; index < known.length; index++)
      if (history[index] !== known.sources[index]) return undefined
    // Another list goes on from a copy: the known one's conversation stays as it is.
    return { ...known, sources: history, messages: known.messages.slice() }
  }

  return async (history: readonly WithParts[], model: TargetModel): Promise<ModelMessage[]> => {
    const target = `${model.providerID}\n${model.id}\n${model.capabilities?.attachment === true}`
    const conversation = continued(history, target)
    const from = conversation?.length ?? 0
    const kept = conversation?.messages.length ?? 0
    const added: ModelMessage[] = []
    for (let index = from; index < history.length; index++)
      for (const message of await convert(history[index]!, model, target)) added.push(message)
    // From here nothing awaits, so the conversation is extended in one go; unless another call
    // on the same list extended it meanwhile, when this one keeps its result to itself.
    if (conversation !== undefined && conversation.length !== from)
      return [...conversation.messages.slice(0, kept), ...added]
    const entry = conversation ?? { target, sources: history, length: 0, last: undefined, messages: [] }
    for (const message of added) entry.messages.push(message)
    entry.length = history.length
    entry.last = history.at(-1)
    byList.set(history, entry)
    const first = history[0]
    if (first !== undefined) byFirst.set(first, entry)
    return entry.messages.slice()
  }
}

/**
 * Whether `list` still holds the messages `conversation` converted, as far as its end shows: a
 * guard against a caller that changed its list in place, which the lists a run hands out never do.
 */
function grewFrom(list: readonly WithParts[], conversation: Conversation): boolean {
  return list.length >= conversation.length && list[conversation.length - 1] === conversation.last
}

export type PromptCache = ReturnType<typeof createPromptCache>
