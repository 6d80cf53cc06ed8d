import {
  createRuntime,
  type Event,
  MemoryStorage,
  type RuntimeOptions,
  SessionProcessor,
  type StorageWrite,
} from "../../src/index.js"
import type { ModelInfo } from "../../src/provider/model-info.js"
import { createBuilders, scriptedModel, type Turn } from "../../src/testing/index.js"

export const modelInfo: ModelInfo = {
  providerID: "scripted",
  id: "scripted-model",
  name: "Scripted",
  limit: { context: 200_000, output: 32_000 },
  cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
  capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
}

/** A runtime with a session, a user message and an empty assistant message, ready for one turn. */
export async function turnSetup(turns: Turn[], options: RuntimeOptions = {}) {
  const storage = new MemoryStorage()
  const writes: StorageWrite[] = []
  const write = storage.write.bind(storage)
  storage.write = async (batch) => {
    writes.push(...batch)
    return write(batch)
  }
  const runtime = createRuntime({ storage, ...options })
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create()
  const build = createBuilders()
  const model = { providerID: modelInfo.providerID, modelID: modelInfo.id }
  const question = build.user(session.id, { id: await runtime.session.newMessageID(session.id), model })
  await runtime.session.updateMessage(question)
  const assistant = build.assistant(session.id, question.id, {
    id: await runtime.session.newMessageID(session.id),
    ...model,
  })
  await runtime.session.updateMessage(assistant)
  const language = scriptedModel(turns)
  const abort = new AbortController()
  const processor = SessionProcessor.create({
    runtime,
    assistantMessage: assistant,
    model: { language, info: modelInfo },
    abort: abort.signal,
  })
  writes.length = 0
  events.length = 0
  const stored = async () => {
    const messages = await runtime.session.messages(session.id)
    return messages.find((message) => message.info.id === assistant.id)!
  }
  return { runtime, storage, session, assistant, language, abort, processor, writes, events, stored }
}

export const user = (text: string) => [{ role: "user" as const, content: text }]
