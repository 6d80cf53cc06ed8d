// The message list: one bubble per message, one element per part, updated in place as events
// arrive. Model text only ever goes through textContent, so it can never become markup.

/** Creates an element; `text` sets textContent, other keys become attributes. */
export function el(tag, attributes = {}, children = []) {
  const element = document.createElement(tag)
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue
    if (key === "text") element.textContent = value
    else element.setAttribute(key, String(value))
  }
  element.append(...children)
  return element
}

const TOOL_STATUS = { pending: "pending", running: "running", completed: "done", error: "failed" }

export function createMessageList(container) {
  /** messageID -> { info, element, body, parts: Map<partID, { part, element }> } */
  const messages = new Map()

  function message(id, role = "assistant") {
    let entry = messages.get(id)
    if (!entry) {
      const body = el("div", { class: "body" })
      const element = el(
        "article",
        { class: `message ${role}`, "data-testid": "message", "data-role": role },
        [el("div", { class: "role", text: role === "user" ? "You" : "Agent" }), body],
      )
      element.dataset.messageId = id
      container.append(element)
      entry = { info: undefined, element, body, parts: new Map() }
      messages.set(id, entry)
    }
    return entry
  }

  function upsertMessage(info) {
    const entry = message(info.id, info.role)
    entry.info = info
    if (info.role === "assistant" && info.error) showMessageError(entry, info.error)
    follow()
  }

  function showMessageError(entry, error) {
    let note = entry.element.querySelector("[data-testid=message-error]")
    if (!note) {
      note = el("div", { class: "message-error", "data-testid": "message-error" })
      entry.element.append(note)
    }
    note.textContent = error.name === "MessageAbortedError" ? "Stopped." : describeError(error)
  }

  function upsertPart(part) {
    const entry = message(part.messageID)
    const known = entry.parts.get(part.id)
    const element = renderPart(part, known?.element)
    if (!element) return
    if (!known) entry.body.append(element)
    entry.parts.set(part.id, { part, element })
    follow()
  }

  /** A streamed piece of a text or reasoning part: appended, until the part's next update replaces it. */
  function applyDelta({ messageID, partID, delta }) {
    const entry = message(messageID)
    const known = entry.parts.get(partID)
    const part = known
      ? { ...known.part, text: (known.part.text ?? "") + delta }
      : { id: partID, messageID, type: "text", text: delta }
    upsertPart(part)
  }

  function removeMessage(id) {
    messages.get(id)?.element.remove()
    messages.delete(id)
  }

  function removePart(messageID, partID) {
    const entry = messages.get(messageID)
    entry?.parts.get(partID)?.element.remove()
    entry?.parts.delete(partID)
  }

  /** Stored history; parts already shown (and perhaps further along by deltas) are left alone. */
  function load(history) {
    for (const { info, parts } of history) {
      upsertMessage(info)
      for (const part of parts) if (!messages.get(info.id).parts.has(part.id)) upsertPart(part)
    }
  }

  function showError(error) {
    container.append(
      el("div", { class: "session-error", "data-testid": "session-error", text: describeError(error) }),
    )
    follow()
  }

  // Keep the newest content in view while it streams.
  function follow() {
    container.scrollTop = container.scrollHeight
  }

  return { upsertMessage, upsertPart, applyDelta, removeMessage, removePart, load, showError }
}

export function describeError(error) {
  const message = error?.data?.message
  return message ? `${error.name}: ${message}` : String(error?.name ?? error)
}

/** The element for a part, reusing `existing` when the part was shown before; undefined to hide it. */
function renderPart(part, existing) {
  switch (part.type) {
    case "text":
      if (part.synthetic || part.ignored) return undefined
      return fill(existing ?? el("div", { class: "text", "data-testid": "text-part" }), part.text)
    case "reasoning": {
      const element =
        existing ?? el("details", { class: "reasoning" }, [el("summary", { text: "Thinking" }), el("div")])
      fill(element.lastElementChild, part.text)
      return element
    }
    case "tool":
      return renderTool(part, existing)
    case "file":
      return existing ?? el("div", { class: "file", text: `Attached: ${part.filename ?? part.mime}` })
    default:
      // Step boundaries, snapshots, patches: bookkeeping, not conversation.
      return undefined
  }
}

function renderTool(part, existing) {
  const { state } = part
  const element = existing ?? el("div", { class: "tool", "data-testid": "tool-call", "data-tool": part.tool })
  element.dataset.status = state.status
  // Until a tool names its call, its input says what it is doing; a question says it best itself.
  const title = state.title ?? state.input?.questions?.[0]?.question ?? summarizeInput(state.input)
  const output = state.status === "completed" ? state.output : state.status === "error" ? state.error : ""
  element.replaceChildren(
    el("div", { class: "tool-head" }, [
      el("span", { class: "tool-name", text: part.tool }),
      el("span", {
        class: `badge ${state.status}`,
        "data-testid": "tool-state",
        text: TOOL_STATUS[state.status],
      }),
      el("span", { class: "tool-title", "data-testid": "tool-title", text: title }),
    ]),
  )
  if (output)
    element.append(
      el("details", {}, [
        el("summary", { text: state.status === "error" ? "Error" : "Output" }),
        el("pre", { "data-testid": "tool-output", text: output }),
      ]),
    )
  return element
}

function summarizeInput(input) {
  const text = JSON.stringify(input ?? {})
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

function fill(element, text) {
  element.textContent = text ?? ""
  return element
}
