// Permission prompts and questions, one modal at a time: requests queue up while one is open,
// and a request answered elsewhere (another tab, a timeout) leaves the queue when its event comes.
import { el } from "./render.js"

/** `answer(kind, request, body)` posts the reply (body undefined: the question is dismissed). */
export function createAsks({ permissionDialog, questionDialog, answer, onError }) {
  const queue = []
  let current

  // Escape must not leave a run waiting on a dialog nobody can see again.
  for (const dialog of [permissionDialog, questionDialog])
    dialog.addEventListener("cancel", (event) => event.preventDefault())

  for (const button of permissionDialog.querySelectorAll("button[data-reply]"))
    button.addEventListener("click", () => respond({ reply: button.dataset.reply }))

  const questionForm = questionDialog.querySelector("form")
  questionForm.addEventListener("submit", (event) => {
    event.preventDefault()
    respond({ answers: readAnswers(questionForm, current.request) })
  })
  questionDialog
    .querySelector("[data-testid=question-dismiss]")
    .addEventListener("click", () => respond(undefined))

  function ask(kind, request) {
    if (current?.request.id === request.id || queue.some((item) => item.request.id === request.id)) return
    queue.push({ kind, request })
    if (!current) showNext()
  }

  function settled(requestID) {
    const index = queue.findIndex((item) => item.request.id === requestID)
    if (index >= 0) queue.splice(index, 1)
    if (current?.request.id === requestID) close()
  }

  async function respond(body) {
    const item = current
    if (!item) return
    setBusy(true)
    try {
      await answer(item.kind, item.request, body)
    } catch (error) {
      onError(error)
    } finally {
      setBusy(false)
      if (current === item) close()
    }
  }

  function close() {
    permissionDialog.open && permissionDialog.close()
    questionDialog.open && questionDialog.close()
    current = undefined
    showNext()
  }

  function showNext() {
    current = queue.shift()
    if (!current) return
    if (current.kind === "permission") showPermission(current.request)
    else showQuestion(current.request)
  }

  function showPermission(request) {
    permissionDialog.querySelector("[data-testid=permission-name]").textContent = request.permission
    permissionDialog
      .querySelector("[data-testid=permission-patterns]")
      .replaceChildren(...request.patterns.map((pattern) => el("li", { text: pattern })))
    permissionDialog.dataset.requestId = request.id
    permissionDialog.showModal()
  }

  function showQuestion(request) {
    questionDialog
      .querySelector("[data-testid=question-list]")
      .replaceChildren(...request.questions.map((question, index) => renderQuestion(question, index)))
    questionDialog.dataset.requestId = request.id
    questionDialog.showModal()
  }

  function setBusy(busy) {
    for (const button of [
      ...permissionDialog.querySelectorAll("button"),
      ...questionForm.querySelectorAll("button"),
    ])
      button.disabled = busy
  }

  return { ask, settled }
}

function renderQuestion(question, index) {
  const type = question.multiple ? "checkbox" : "radio"
  const options = question.options.map((option) =>
    el("label", { class: "option" }, [
      el("input", { type, name: `q${index}`, value: option.label, "data-testid": "question-option" }),
      el("span", { class: "label", text: option.label }),
      option.description ? el("span", { class: "description", text: option.description }) : "",
    ]),
  )
  // Free text is allowed unless the question says otherwise (the schema's default is true).
  const custom =
    question.custom === false
      ? []
      : [
          el("input", {
            type: "text",
            name: `q${index}-custom`,
            placeholder: "Or type your own answer",
            "data-testid": "question-custom",
          }),
        ]
  return el("fieldset", { "data-testid": "question" }, [
    el("legend", { text: question.header }),
    el("p", { text: question.question }),
    ...options,
    ...custom,
  ])
}

/** The answers in the order of the questions: the chosen labels, then any free text. */
function readAnswers(form, request) {
  return request.questions.map((_question, index) => {
    const chosen = [...form.querySelectorAll(`input[name="q${index}"]:checked`)].map((input) => input.value)
    const custom = form.querySelector(`input[name="q${index}-custom"]`)?.value.trim()
    return custom ? [...chosen, custom] : chosen
  })
}
