// What a user does first with the installed package, shared by the ESM and the CommonJS
// smoke scripts: every promised export exists, and a scripted session runs on a SQLite file.
const assert = require("node:assert/strict")
const { join } = require("node:path")

function checkExports(modules, api) {
  for (const entry of api) {
    for (const path of entry.values) {
      const value = path.split(".").reduce((object, key) => object?.[key], modules[entry.specifier])
      assert.notEqual(value, undefined, `${entry.specifier}: ${path} is missing at run time`)
    }
  }
}

async function runSession(root, testing, sqlite, directory) {
  const file = join(directory, "sessions.db")
  const { runtime } = testing.createTestRuntime({
    storage: new sqlite.SqliteStorage(file),
    turns: [[testing.say.text("Hello from the packed package")]],
  })
  const session = await runtime.session.create({ title: "smoke" })
  const answer = root.MessageV2.throwIfFailed(
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] }),
  )
  assert.equal(answer.info.finish, "stop")
  assert.deepEqual(
    answer.parts.filter((part) => part.type === "text").map((part) => part.text),
    ["Hello from the packed package"],
  )
  await assert.rejects(runtime.session.get(root.Identifier.descending("session")), (error) =>
    root.NotFoundError.isInstance(error),
  )
  await runtime.close()

  const reopened = new sqlite.SqliteStorage(file)
  const stored = await reopened.listMessages(session.id)
  assert.deepEqual(
    stored.map((message) => message.info.role),
    ["user", "assistant"],
  )
  await reopened.close()
}

/**
 * The coding tools and GitSnapshot from the installed package: the shell grammar (a .wasm file)
 * loads from either build, a command runs, the step's patch is recorded and reverted.
 */
async function runCodingSession(testing, tools, git, directory) {
  const { mkdirSync, readFileSync, existsSync } = require("node:fs")
  const work = join(directory, "project")
  mkdirSync(work, { recursive: true })
  const { runtime } = testing.createTestRuntime({
    directory: work,
    tools: tools.codingTools({ directory: work }),
    snapshot: new git.GitSnapshot({ directory: work, dataDir: join(directory, "snapshots") }),
    turns: [
      [testing.say.toolCall("write", { filePath: "a.txt", content: "made by the agent\n" })],
      [testing.say.toolCall("bash", { command: "cat a.txt && echo ran", description: "Show the file" })],
      [testing.say.text("done")],
    ],
  })
  const session = await runtime.session.create({ title: "coding" })
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  assert.equal(readFileSync(join(work, "a.txt"), "utf8"), "made by the agent\n")
  const messages = await runtime.session.messages(session.id)
  const parts = messages.flatMap((message) => message.parts)
  const bash = parts.find((part) => part.type === "tool" && part.tool === "bash")
  assert.equal(bash.state.status, "completed", JSON.stringify(bash.state))
  assert.match(bash.state.output, /made by the agent\nran/)
  assert.deepEqual(
    parts.filter((part) => part.type === "patch").map((part) => part.files),
    [["a.txt"]],
  )
  await runtime.session.revert({ sessionID: session.id, messageID: messages[0].info.id })
  assert.equal(existsSync(join(work, "a.txt")), false)
  await runtime.close()
}

/** The HTTP entry from the installed package: a session created and prompted over `app.request`. */
async function runServer(testing, server) {
  const { runtime } = testing.createTestRuntime({ turns: [[testing.say.text("Hello over HTTP")]] })
  const app = server.createServer(runtime)
  const created = await app.request("/session", {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  })
  assert.equal(created.status, 200)
  const { id } = await created.json()
  const answered = await app.request(`/session/${id}/message`, {
    method: "POST",
    body: JSON.stringify({ parts: [{ type: "text", text: "Hi" }] }),
    headers: { "content-type": "application/json" },
  })
  assert.equal(answered.status, 200)
  const answer = await answered.json()
  assert.deepEqual(
    answer.parts.filter((part) => part.type === "text").map((part) => part.text),
    ["Hello over HTTP"],
  )
  assert.equal((await app.request("/doc")).status, 200)
  await runtime.close()
}

module.exports = { checkExports, runSession, runCodingSession, runServer }
