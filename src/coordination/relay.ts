import type { Forwarded } from "../ask/deps.js"
import type { Bus } from "../bus/bus.js"
import { UnknownError } from "../message/errors.js"
import type { Event } from "../schema/events.js"
import type { ReplyInput as PermissionReplyInput } from "../schema/permission.js"
import type { ReplyInput as QuestionReplyInput } from "../schema/question.js"
import type { Coordinator, CoordinatorMessage } from "./port.js"
import { createRecordedWatch, type RecordedAnswers } from "./recorded-watch.js"

export type RelayTargets = {
  bus: Bus
  loop: {
    takeRemotePrompt(sessionID: string, messageID: string): Promise<void>
    /**
     * Cancels this process's run of the session, without telling the others again; with
     * `sentAt`, only a run or prompt that started by then.
     */
    cancelHere(sessionID: string, sentAt?: number): void
    /** Whether this process runs the session now. */
    runsHere(sessionID: string): boolean
  }
  permission: { reply(input: PermissionReplyInput): Promise<void> }
  question: { reply(input: QuestionReplyInput): Promise<void>; reject(requestID: string): Promise<void> }
}

/**
 * Joins a runtime to the other processes on its storage: every event it publishes is sent to
 * them (a failure to send goes to the runtime's `onListenerError`), theirs are delivered to its
 * listeners, and their prompts, cancels and answers reach its runs and waiting requests.
 * Returns the function that disconnects it.
 */
export function connectRelay(coordinator: Coordinator, targets: RelayTargets): () => void {
  const { bus, loop, permission, question } = targets
  // A prompt, cancel or answer from another process that failed here is the session's error.
  const onError = (error: unknown, sessionID: string) => {
    const message = error instanceof Error ? error.message : String(error)
    bus.publish("session.error", { sessionID, error: new UnknownError({ message }).toObject() })
  }
  const remote = new WeakSet<Event>()
  const offBus = bus.onAny((event) => {
    if (!remote.has(event)) return coordinator.publish({ type: "event", event })
  })
  const offCoordinator = coordinator.subscribe((message) => {
    handle(message).catch((error: unknown) => {
      if (message.type !== "event") onError(error, message.sessionID)
    })
  })

  async function handle(message: CoordinatorMessage): Promise<void> {
    switch (message.type) {
      case "event":
        remote.add(message.event)
        bus.deliver(message.event)
        return
      case "prompt":
        return loop.takeRemotePrompt(message.sessionID, message.messageID)
      case "cancel":
        return loop.cancelHere(message.sessionID, message.sentAt)
      // Only the process running the session answers: any other would forward it again.
      case "permission.reply":
        if (loop.runsHere(message.sessionID)) await permission.reply(message.input)
        return
      case "question.reply":
        if (loop.runsHere(message.sessionID)) await question.reply(message.input)
        return
      case "question.reject":
        if (loop.runsHere(message.sessionID)) await question.reject(message.requestID)
        return
    }
  }

  return () => {
    offBus()
    offCoordinator()
  }
}

/**
 * `AskDeps.forwardElsewhere`: an answer goes to the process that runs the request's session,
 * unless this process runs it or nobody does (then the answer resumes it here, as after a crash).
 * An answer sent away is watched (see recorded-watch.ts): should its process have died before
 * acting on it, this one acts on it once the session's lease is free. `close` ends the watches.
 */
export function createForwarder(
  coordinator: Coordinator,
  targets: { runsHere: (sessionID: string) => boolean; recorded: RecordedAnswers },
) {
  const watch = createRecordedWatch(coordinator, targets.recorded)
  return {
    async forward(message: Forwarded): Promise<boolean> {
      if (targets.runsHere(message.sessionID)) return false
      const lease = await coordinator.claim(message.sessionID, { wait: false })
      if (lease) {
        await lease.release()
        return false
      }
      await coordinator.publish(message)
      watch.add(message.sessionID)
      return true
    },
    close: watch.close,
  }
}
