import { z } from "zod"
import { type Bus, createBus, type Events } from "./bus/bus.js"
import type { Event } from "./bus/catalog.js"
import { parseInput } from "./error/invalid-input.js"
import { RuntimeClosedError } from "./error/runtime-closed.js"
import { createGenerator } from "./id/identifier.js"
import type { ApprovalScope } from "./permission/approvals.js"
import { createPermissionService, type PermissionHandler } from "./permission/service.js"
import type { Provider } from "./provider/provider.js"
import { createQuestionService, type QuestionHandler } from "./question/service.js"
import { createSessionService, type SessionService } from "./session/service.js"
import { MemoryStorage } from "./storage/memory.js"
import type { Storage } from "./storage/port.js"
import { createToolRegistry, type ToolRegistry } from "./tool/registry.js"
import type { Info as ToolInfo } from "./tool/tool.js"

export type RuntimeOptions = {
  /** The models sessions run on. The prompt loop needs one; sessions, storage and asks do not. */
  provider?: Provider
  /** Tools registered besides the built-ins; one with a built-in's id replaces it. */
  tools?: ToolInfo[]
  /** Where sessions live. Default: a new MemoryStorage. */
  storage?: Storage
  /** Working directory recorded on new sessions. Default: process.cwd(). */
  directory?: string
  /** Answers permission requests. Without it, answers come from runtime.permission.reply. */
  onPermission?: PermissionHandler
  /** Answers questions. Without it, answers come from runtime.question.reply. */
  onQuestion?: QuestionHandler
  /** How long a permission request or question waits for an answer. Default: no limit. */
  askTimeoutMs?: number
  /**
   * For headless hosts without a handler: permission requests that would wait for a human
   * are denied ("deny") or allowed ("allow"), and questions are rejected. Default: unset.
   */
  nonInteractive?: "deny" | "allow"
  /** What an "always" approval covers: the session and its children (default), or every session. */
  approvalScope?: ApprovalScope
  /** Called when an event listener throws. Default: console.error. */
  onListenerError?: (error: unknown, event: Event) => void
}

const STORAGE_METHODS = [
  "getSession",
  "listSessions",
  "getMessage",
  "listMessages",
  "getValue",
  "listValues",
  "write",
  "close",
]
const isFunction = (value: unknown) => typeof value === "function"

const Options = z.strictObject({
  provider: z
    .custom<Provider>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        ["getModel", "defaultModel", "smallModel"].every((method) =>
          isFunction((value as Record<string, unknown>)[method]),
        ),
      { message: "expected a Provider (getModel, defaultModel, smallModel): see createProvider" },
    )
    .optional(),
  tools: z
    .array(
      z.custom<ToolInfo>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          isFunction((value as Record<string, unknown>).execute),
        { message: "expected a tool made with Tool.define" },
      ),
    )
    .optional(),
  storage: z
    .custom<Storage>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        STORAGE_METHODS.every((method) => isFunction((value as Record<string, unknown>)[method])),
      { message: `expected a Storage (${STORAGE_METHODS.join(", ")})` },
    )
    .optional(),
  directory: z.string().min(1).optional(),
  onPermission: z.custom<PermissionHandler>(isFunction, { message: "expected a function" }).optional(),
  onQuestion: z.custom<QuestionHandler>(isFunction, { message: "expected a function" }).optional(),
  askTimeoutMs: z.number().int().positive().optional(),
  nonInteractive: z.enum(["deny", "allow"]).optional(),
  approvalScope: z.enum(["session", "runtime"]).optional(),
  onListenerError: z
    .custom<RuntimeOptions["onListenerError"]>(isFunction, { message: "expected a function" })
    .optional(),
})

export type Runtime = {
  /** The provider given in the options, if any. */
  provider: Provider | undefined
  /** The runtime's tools: built-ins and `options.tools`. */
  tools: ToolRegistry
  session: SessionService
  permission: {
    ask: ReturnType<typeof createPermissionService>["ask"]
    list: ReturnType<typeof createPermissionService>["list"]
    reply: ReturnType<typeof createPermissionService>["reply"]
  }
  question: {
    ask: ReturnType<typeof createQuestionService>["ask"]
    list: ReturnType<typeof createQuestionService>["list"]
    reply: ReturnType<typeof createQuestionService>["reply"]
    reject: ReturnType<typeof createQuestionService>["reject"]
  }
  events: Events
  /**
   * Rejects pending permission requests and questions, ends event streams, then closes the
   * storage. Calls made afterwards fail with RuntimeClosedError.
   */
  close(): Promise<void>
}

/** The composition root: everything stateful belongs to the runtime it returns. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const parsed = parseInput("runtime options", Options, options)
  const storage = parsed.storage ?? new MemoryStorage()
  const bus: Bus = createBus(parsed.onListenerError ? { onListenerError: parsed.onListenerError } : {})
  const ids = createGenerator()
  let closed: Promise<void> | undefined
  const assertOpen = () => {
    if (closed) throw new RuntimeClosedError({ message: "The runtime is closed" })
  }
  const ask = {
    storage,
    bus,
    ids,
    assertOpen,
    askTimeoutMs: parsed.askTimeoutMs,
    nonInteractive: parsed.nonInteractive,
  }

  const session = createSessionService({
    storage,
    bus,
    ids,
    directory: parsed.directory ?? process.cwd(),
    assertOpen,
  })
  const permission = createPermissionService({
    ...ask,
    onPermission: parsed.onPermission,
    approvalScope: parsed.approvalScope ?? "session",
  })
  const question = createQuestionService({ ...ask, onQuestion: parsed.onQuestion })

  const { on, onAny, stream, listenerCount } = bus
  return {
    provider: parsed.provider,
    tools: createToolRegistry(parsed.tools ?? []),
    session,
    permission: { ask: permission.ask, list: permission.list, reply: permission.reply },
    question: { ask: question.ask, list: question.list, reply: question.reply, reject: question.reject },
    events: { on, onAny, stream, listenerCount },
    close() {
      closed ??= (async () => {
        try {
          await permission.close()
          await question.close()
        } finally {
          bus.close()
          await storage.close()
        }
      })()
      return closed
    },
  }
}
