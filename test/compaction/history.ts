import type { MessageV2 } from "../../src/index.js"
import { createBuilders } from "../../src/testing/index.js"

/** Hand-built histories for compaction tests: messages in order, parts filled in. */
export function historyBuilder() {
  const build = createBuilders()
  const sessionID = build.session().id
  const messages: MessageV2.WithParts[] = []
  let parent = ""

  const part = (messageID: string) => ({ id: build.ids.ascending("part"), sessionID, messageID })

  return {
    sessionID,
    messages,
    user(text: string, extra: MessageV2.Part[] = []): MessageV2.WithParts {
      const info = build.user(sessionID)
      parent = info.id
      const message = { info, parts: [{ ...part(info.id), type: "text" as const, text }, ...extra] }
      messages.push(message)
      return message
    },
    assistant(
      text: string,
      options: {
        summary?: boolean
        finish?: string
        error?: boolean
        tool?: { name?: string; output: string }
      } = {},
    ): MessageV2.WithParts {
      const info = build.assistant(sessionID, parent, {
        ...(options.finish === undefined
          ? { finish: "stop" }
          : options.finish === ""
            ? {}
            : { finish: options.finish }),
        ...(options.summary ? { summary: true, agent: "compaction" } : {}),
        ...(options.error ? { error: { name: "UnknownError", data: { message: "boom" } } } : {}),
      })
      const parts: MessageV2.Part[] = [{ ...part(info.id), type: "text", text }]
      if (options.tool)
        parts.push({
          ...part(info.id),
          type: "tool",
          tool: options.tool.name ?? "read",
          callID: `call-${info.id}`,
          state: {
            status: "completed",
            input: { path: "a.ts" },
            output: options.tool.output,
            title: "a.ts",
            metadata: {},
            time: { start: 1, end: 2 },
          },
        })
      const message = { info, parts }
      messages.push(message)
      return message
    },
    compaction(tailStartID?: string): MessageV2.WithParts {
      const info = build.user(sessionID)
      parent = info.id
      const message = {
        info,
        parts: [
          {
            ...part(info.id),
            type: "compaction" as const,
            auto: true,
            ...(tailStartID === undefined ? {} : { tailStartID }),
          },
        ],
      }
      messages.push(message)
      return message
    },
  }
}

export const idsOf = (messages: readonly MessageV2.WithParts[]) => messages.map((message) => message.info.id)
