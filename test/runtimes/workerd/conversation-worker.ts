// The Worker run.ts serves to check DurableObjectSqliteStorage in real Durable Objects: one
// conversation per object (its runtime on the object's SQLite, a useChat request streamed through
// chatHandler, its messages read back, also after workerd restarted), and the storage
// conformance suite, each case in an object of its own.
import { createRuntime, type Runtime } from "agentloop-sdk"
import { chatHandler } from "agentloop-sdk/server"
import {
  DurableObjectSqliteStorage,
  type DurableObjectSqlStorage,
} from "agentloop-sdk/storage/durable-object"
import { say, scriptedModel, storageConformance } from "agentloop-sdk/testing"

// Cloudflare's types are not installed: the little used of them, written out.
type State = { storage: DurableObjectSqlStorage }
type Stub = { fetch(request: Request): Promise<Response> }
type Namespace = { idFromName(name: string): unknown; get(id: unknown): Stub }
type Env = { CONVERSATIONS: Namespace; CONFORMANCE: Namespace }

/** One conversation: one session, in this object's SQLite. */
export class Conversation {
  readonly #runtime: Runtime

  constructor(state: State) {
    this.#runtime = createRuntime({
      model: scriptedModel([], { fallback: [say.text("Noted.")] }),
      storage: new DurableObjectSqliteStorage(state.storage),
    })
  }

  async fetch(request: Request): Promise<Response> {
    const [session] = await this.#runtime.session.list({ limit: 1 })
    if (new URL(request.url).pathname.endsWith("/chat")) {
      const sessionID = session?.id ?? (await this.#runtime.session.create()).id
      return chatHandler(this.#runtime)(request, sessionID)
    }
    const messages = session ? await this.#runtime.session.messages(session.id) : []
    return Response.json(
      messages.map(({ info, parts }) => ({
        role: info.role,
        text: parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
      })),
    )
  }
}

type Case = () => Promise<void>

/** The conformance suite's cases by name, each run on storage made by `makeStorage`. */
function conformanceCases(makeStorage: () => DurableObjectSqliteStorage): Map<string, Case> {
  const cases = new Map<string, Case>()
  const path: string[] = []
  storageConformance(makeStorage, {
    describe: (name, body) => {
      path.push(name)
      body()
      path.pop()
    },
    it: (name, body) => {
      cases.set([...path, name].join(" > "), body)
    },
  })
  return cases
}

/** Runs one conformance case, named by `?case=`, on this object's SQLite. */
export class Conformance {
  readonly #cases: Map<string, Case>

  constructor(state: State) {
    this.#cases = conformanceCases(() => new DurableObjectSqliteStorage(state.storage))
  }

  async fetch(request: Request): Promise<Response> {
    const name = new URL(request.url).searchParams.get("case") ?? ""
    const run = this.#cases.get(name)
    if (!run) return Response.json({ name, error: "no such case" })
    try {
      await run()
      return Response.json({ name })
    } catch (error) {
      return Response.json({
        name,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      })
    }
  }
}

async function conformance(env: Env): Promise<Response> {
  const names = [
    ...conformanceCases(() => {
      throw new Error("only listed")
    }).keys(),
  ]
  const results = []
  for (const name of names) {
    const stub = env.CONFORMANCE.get(env.CONFORMANCE.idFromName(name))
    const response = await stub.fetch(new Request(`http://do/case?case=${encodeURIComponent(name)}`))
    results.push(await response.json())
  }
  return Response.json(results)
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url)
    if (pathname === "/health") return new Response("ok")
    if (pathname === "/conformance") return conformance(env)
    const match = /^\/conversation\/([\w-]+)\/(chat|messages)$/.exec(pathname)
    if (!match?.[1]) return new Response("not found", { status: 404 })
    return env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(match[1])).fetch(request)
  },
}
