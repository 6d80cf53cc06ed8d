import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { postgresSuite } from "./pg-suite.js"
import { runningWorkers, WorkerProcess } from "./worker-process.js"

const { url, suite, dropAfter } = postgresSuite({
  cleanup: () => {
    for (const child of runningWorkers) child.kill("SIGKILL")
  },
})
const workerFile = fileURLToPath(new URL("../fixtures/pg-worker.ts", import.meta.url))

async function workers(count: number) {
  const schema = `p_${randomBytes(6).toString("hex")}`
  dropAfter(schema)
  const started = Array.from(
    { length: count },
    () => new WorkerProcess(workerFile, { AGENTLOOP_PG_URL: url, AGENTLOOP_PG_SCHEMA: schema }),
  )
  await Promise.all(started.map((worker) => worker.until((line) => line.event === "ready")))
  return { schema, workers: started }
}

suite("runtimes in several processes on one PostgreSQL database", () => {
  it("2 processes × 25 prompts to one session never run two model calls at once", async () => {
    const {
      schema,
      workers: [a, b],
    } = await workers(2)
    const sessionID = (await a!.call("create")) as string
    const prompts = Array.from({ length: 50 }, (_, index) =>
      (index % 2 === 0 ? a! : b!).call("prompt", { sessionID, text: `prompt ${index}` }),
    )
    const answers = (await Promise.all(prompts)) as { texts: string[] }[]
    for (const answer of answers) expect(answer.texts).toEqual(["ok"])
    expect([...a!.events, ...b!.events].filter((line) => line.event === "overlap")).toEqual([])
    const storage = new PostgresStorage({ connectionString: url }, { schema })
    const messages = await storage.listMessages(sessionID)
    expect(messages.filter((message) => message.info.role === "user")).toHaveLength(50)
    expect(messages.at(-1)!.info.role).toBe("assistant")
    await storage.close()
    await Promise.all([a!.close(), b!.close()])
  }, 120_000)

  it("when the owner is killed mid-turn, another process takes the session over and goes on", async () => {
    const {
      schema,
      workers: [a, b],
    } = await workers(2)
    const sessionID = (await a!.call("create")) as string
    void a!.call("prompt", { sessionID, text: "block" }).catch(() => undefined)
    await a!.until((line) => line.event === "tool-started")
    await a!.kill()
    // B's loop waits until the dead owner's lock is gone, then closes the cut-off turn as a
    // cancel would (the durability rules) and continues it with a new step, in B.
    const continued = (await b!.call("loop", { sessionID })) as {
      id: string
      texts: string[]
      error?: unknown
    }
    expect(continued.error).toBeUndefined()
    expect(continued.texts).toEqual(["done"])
    const answer = (await b!.call("prompt", { sessionID, text: "go on" })) as { texts: string[] }
    expect(answer.texts).toEqual(["ok"])
    const storage = new PostgresStorage({ connectionString: url }, { schema })
    const messages = await storage.listMessages(sessionID)
    const cut = messages.find((message) => message.parts.some((part) => part.type === "tool"))
    expect(cut?.info).toMatchObject({
      error: { name: "AbortedError", data: { message: expect.stringContaining("stopped") } },
    })
    expect(cut?.parts.find((part) => part.type === "tool")).toMatchObject({
      tool: "block",
      state: { status: "error", metadata: { interrupted: true } },
    })
    await storage.close()
    await b!.close()
  }, 60_000)

  it("a permission asked in one process is answered in another, and the run goes on", async () => {
    const {
      workers: [a, b],
    } = await workers(2)
    const sessionID = (await a!.call("create")) as string
    const answer = a!.call("prompt", { sessionID, text: "ask" })
    // B hears the ask through the database, and answers it.
    const asked = await b!.until((line) => line.event === "asked")
    await b!.call("reply", { requestID: asked.requestID })
    expect(((await answer) as { texts: string[] }).texts).toEqual(["done"])
    await Promise.all([a!.close(), b!.close()])
  }, 60_000)

  it("a reply forwarded to an owner killed before it acted on it is acted on by the process that takes over", async () => {
    const {
      schema,
      workers: [a, b],
    } = await workers(2)
    const sessionID = (await a!.call("create")) as string
    void a!.call("prompt", { sessionID, text: "ask" }).catch(() => undefined)
    const asked = await b!.until((line) => line.event === "asked")
    // A still owns the session, so B's reply goes to A, which never acts on it.
    a!.pause()
    await b!.call("reply", { requestID: asked.requestID })
    await a!.kill()
    const continued = (await b!.call("loop", { sessionID })) as { texts: string[]; error?: unknown }
    expect(continued.error).toBeUndefined()
    expect(continued.texts).toEqual(["done"])
    const storage = new PostgresStorage({ connectionString: url }, { schema })
    const messages = await storage.listMessages(sessionID)
    const tool = messages.flatMap((message) => message.parts).find((part) => part.type === "tool")
    expect(tool).toMatchObject({ tool: "gate", state: { status: "completed", output: "through the gate" } })
    expect(await storage.listValues("permission/")).toEqual([])
    await storage.close()
    await b!.close()
  }, 60_000)
})
