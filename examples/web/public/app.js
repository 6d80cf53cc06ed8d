// The chat page: one session (named in the URL's hash, so a reload picks it up again), its events
// over SSE, and the HTTP routes of agentloop-sdk/server for everything the person does.
import { createAsks } from "./dialogs.js"
import { createMessageList, describeError } from "./render.js"

const $ = (id) => document.getElementById(id)
const list = createMessageList($("messages"))
const input = $("prompt")
const send = $("send")
const stop = $("stop")
const status = $("status")

/** Calls a route; a failure throws with the server's `{ name, data }` error as its message. */
async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  const value = text === "" ? undefined : JSON.parse(text)
  if (!response.ok) throw new Error(value ? describeError(value) : `${method} ${path}: ${response.status}`)
  return value
}

const showFailure = (error) => list.showError({ name: "Error", data: { message: error.message } })

const asks = createAsks({
  permissionDialog: $("permission-dialog"),
  questionDialog: $("question-dialog"),
  onError: showFailure,
  answer(kind, request, body) {
    const scope = { sessionID: request.sessionID }
    if (kind === "permission") return call("POST", `/permission/${request.id}/reply`, { ...body, ...scope })
    if (body === undefined) return call("POST", `/question/${request.id}/reject`, scope)
    return call("POST", `/question/${request.id}/reply`, { ...body, ...scope })
  },
})

function setStatus(state, text = state) {
  status.dataset.status = state
  status.textContent = text
  const busy = state === "busy" || state === "retry"
  send.disabled = busy || state === "connecting" || state === "offline"
  stop.disabled = !busy
}

async function openSession() {
  const named = decodeURIComponent(location.hash.slice(1))
  if (named) {
    try {
      return await call("GET", `/session/${encodeURIComponent(named)}`)
    } catch {
      // Gone (the example keeps sessions in memory): start a new one.
    }
  }
  const session = await call("POST", "/session", { title: "Web chat" })
  history.replaceState(null, "", `#${session.id}`)
  return session
}

/** Everything a session's event stream can tell the page, by event type. */
function handlers(sessionID) {
  return {
    // Sent once the stream is live: nothing after this is missed, so catch up on what came before.
    "server.connected": async () => {
      const [messages, permissions, questions] = await Promise.all([
        call("GET", `/session/${sessionID}/message`),
        call("GET", "/permission"),
        call("GET", "/question"),
      ])
      list.load(messages)
      for (const request of permissions) if (request.sessionID === sessionID) asks.ask("permission", request)
      for (const request of questions) if (request.sessionID === sessionID) asks.ask("question", request)
      if (status.dataset.status === "connecting" || status.dataset.status === "offline") setStatus("idle")
    },
    "message.updated": ({ info }) => list.upsertMessage(info),
    "message.removed": ({ messageID }) => list.removeMessage(messageID),
    "message.part.updated": ({ part }) => list.upsertPart(part),
    "message.part.removed": ({ messageID, partID }) => list.removePart(messageID, partID),
    "message.part.delta": (delta) => list.applyDelta(delta),
    "permission.asked": (request) => asks.ask("permission", request),
    "permission.replied": ({ requestID }) => asks.settled(requestID),
    "question.asked": (request) => asks.ask("question", request),
    "question.replied": ({ requestID }) => asks.settled(requestID),
    "question.rejected": ({ requestID }) => asks.settled(requestID),
    "session.status": ({ status: next }) =>
      next.type === "retry"
        ? setStatus("retry", `retrying (attempt ${next.attempt}): ${next.message}`)
        : setStatus(next.type),
    "session.idle": () => setStatus("idle"),
    // A stopped run already says so in its message; other failures get a line of their own.
    "session.error": ({ error }) => error.name !== "MessageAbortedError" && list.showError(error),
  }
}

async function start() {
  const session = await openSession()
  document.title = `agentloop chat: ${session.title}`
  const source = new EventSource(`/event?sessionID=${encodeURIComponent(session.id)}`)
  for (const [type, handle] of Object.entries(handlers(session.id)))
    source.addEventListener(type, (event) => {
      Promise.resolve(handle(JSON.parse(event.data).properties)).catch(showFailure)
    })
  // EventSource reconnects by itself; server.connected then brings the page up to date.
  source.addEventListener("error", () => setStatus("offline", "reconnecting"))

  $("composer").addEventListener("submit", async (event) => {
    event.preventDefault()
    const text = input.value.trim()
    if (!text || send.disabled) return
    input.value = ""
    setStatus("busy")
    try {
      await call("POST", `/session/${session.id}/prompt_async`, { parts: [{ type: "text", text }] })
    } catch (error) {
      showFailure(error)
      setStatus("idle")
    }
  })
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault()
      $("composer").requestSubmit()
    }
  })
  stop.addEventListener("click", () => call("POST", `/session/${session.id}/abort`).catch(showFailure))
}

start().catch((error) => {
  setStatus("offline", "failed to start")
  showFailure(error)
})
