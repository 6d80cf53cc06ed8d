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

module.exports = { checkExports, runSession }
