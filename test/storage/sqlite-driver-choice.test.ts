import { randomUUID } from "node:crypto"
import fs from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect, it, vi } from "vitest"
import { InvalidInputError } from "../../src/error/invalid-input.js"
import type { Drivers } from "../../src/storage/sqlite/driver.js"
import { currentRuntime } from "../../src/storage/sqlite/driver-advice.js"
import { RUNTIME_DRIVERS, runtimeDrivers } from "../../src/storage/sqlite/driver-loaders.js"
import { SqliteOpenError, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { openDatabase } from "../../src/storage/sqlite/open-database.js"
import { createBuilders } from "../../src/testing/index.js"
import { sqliteDrivers } from "./sqlite-drivers.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-sqlite-driver-"))
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))
const newFile = () => path.join(directory, `${randomUUID()}.sqlite`)

/** What a better-sqlite3 built for another Node throws when loaded. */
const dlopenFailure = () =>
  Object.assign(
    new Error(
      "The module 'better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115.",
    ),
    { code: "ERR_DLOPEN_FAILED" },
  )
const broken = () => {
  throw dlopenFailure()
}
const nodeSqlite = RUNTIME_DRIVERS.nodeSqlite
const hasNodeSqlite = nodeSqlite() !== undefined

/** A logger that keeps what it is given. */
function warnings() {
  const messages: string[] = []
  return { messages, logger: { warn: (message: string) => void messages.push(message) } }
}

/** Opens `file` with `drivers`, seeds it and reads it back: the storage works. */
async function works(opened: ReturnType<typeof openDatabase>) {
  const storage = new SqliteStorage(opened.db)
  await storage.write([{ type: "value.put", key: "k", value: 1 }])
  expect(await storage.getValue("k")).toBe(1)
  await storage.close()
}

/** Writes a session with an assistant message carrying every kind of part, and some values. */
async function writeSession(storage: SqliteStorage) {
  const build = createBuilders()
  const session = build.session()
  const user = build.user(session.id)
  const assistant = build.assistant(session.id, user.id)
  const parts = build.everyPart(session.id, assistant.id)
  await storage.write([
    { type: "session.put", info: session },
    { type: "message.put", info: user },
    { type: "part.put", part: build.text(session.id, user.id, "hello") },
    { type: "message.put", info: assistant },
    ...parts.map((part) => ({ type: "part.put" as const, part })),
    { type: "value.put", key: `todo/${session.id}`, value: [{ content: "read", status: "done" }] },
    { type: "value.put", key: "n", value: 2 ** 40 },
  ])
  return {
    session,
    messages: await storage.listMessages(session.id),
    values: await storage.listValues(""),
  }
}

describe("SqliteStorage's driver", () => {
  it("is node:sqlite by default where the runtime has it, else better-sqlite3", async () => {
    const storage = new SqliteStorage(newFile())
    expect(storage.driver).toBe(hasNodeSqlite ? "node:sqlite" : "better-sqlite3")
    await storage.close()
  })

  it("refuses an unknown driver or a logger without warn, naming the option", () => {
    for (const [options, field] of [
      [{ driver: "sqlite3" }, "driver"],
      [{ driver: "bun:sqlite" }, "driver"],
      [{ logger: console.log }, "logger"],
    ] as const) {
      const error = (() => {
        try {
          new SqliteStorage(":memory:", options as never)
        } catch (caught) {
          return caught
        }
      })()
      expect(InvalidInputError.isInstance(error), JSON.stringify(options)).toBe(true)
      expect((error as InvalidInputError).data.issues.map((issue) => issue.path)).toEqual([field])
    }
  })

  const [first, second] = sqliteDrivers()
  if (first && second) {
    it.each([
      [first, second],
      [second, first],
    ])("writes a session through %s that reads back whole through %s", async (writer, reader) => {
      const file = newFile()
      const writing = new SqliteStorage(file, { driver: writer })
      expect(writing.driver).toBe(writer)
      const written = await writeSession(writing)
      await writing.close()

      const reading = new SqliteStorage(file, { driver: reader })
      expect(reading.driver).toBe(reader)
      expect(await reading.getSession(written.session.id)).toEqual(written.session)
      expect(await reading.listMessages(written.session.id)).toEqual(written.messages)
      expect(await reading.listValues("")).toEqual(written.values)
      // And writes on: the reader's own rows read back through the writer.
      const more = await writeSession(reading)
      await reading.close()
      const again = new SqliteStorage(file, { driver: writer })
      expect(await again.listMessages(more.session.id)).toEqual(more.messages)
      expect((await again.listSessions()).length).toBe(2)
      await again.close()
    })
  } else {
    it("writes a session through one driver and reads it through the other (needs both drivers)", () => {
      // Loud where both must be there (CI names them); a note elsewhere.
      const required = process.env.AGENTLOOP_SQLITE_DRIVERS ?? (process.env.CI ? "both" : undefined)
      expect(required, `only ${first} loads here: the cross-driver test cannot run`).toBeUndefined()
      console.warn(`sqlite-driver-choice: only ${first} loads here; the cross-driver test did not run`)
    })
  }
})

describe("openDatabase falling back to the other driver", () => {
  const withNodeSqlite = (betterSqlite3: Drivers["betterSqlite3"]): Drivers => ({
    betterSqlite3,
    nodeSqlite: () => (file) => nodeSqliteOrFail()(file),
  })
  function nodeSqliteOrFail() {
    const open = nodeSqlite()
    if (!open) throw new Error("this runtime has no node:sqlite")
    return open
  }

  it("opens with node:sqlite, and warns once, when better-sqlite3 was asked for but cannot load", async () => {
    const { messages, logger } = warnings()
    const opened = openDatabase(newFile(), {
      driver: "better-sqlite3",
      logger,
      drivers: withNodeSqlite(broken),
    })
    expect(opened.driver).toBe("node:sqlite")
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatch(
      /better-sqlite3 cannot load in \w+ [\d.]+ \(The module .* NODE_MODULE_VERSION 115\.\)/,
    )
    expect(messages[0]).toMatch(/with node:sqlite instead.*npm rebuild better-sqlite3/)
    await works(opened)
  })

  it("says so when better-sqlite3 was asked for but is not installed", async () => {
    const { messages, logger } = warnings()
    const opened = openDatabase(newFile(), {
      driver: "better-sqlite3",
      logger,
      drivers: withNodeSqlite(() => undefined),
    })
    expect(opened.driver).toBe("node:sqlite")
    expect(messages).toEqual([expect.stringMatching(/better-sqlite3 was asked for but is not installed/)])
    await works(opened)
  })

  it("tells Bun and Deno to update a better-sqlite3 that does not load there, not to rebuild it", () => {
    const { messages, logger } = warnings()
    openDatabase(":memory:", {
      driver: "better-sqlite3",
      logger,
      drivers: withNodeSqlite(broken),
      runtime: { name: "Bun", version: "1.4.5" },
    }).db.close()
    expect(messages).toEqual([
      expect.stringMatching(
        /in Bun 1\.4\.5 .* To use better-sqlite3, update it \(npm install better-sqlite3@latest; 13 and later come prebuilt\); to use node:sqlite without this warning, leave the driver option out/,
      ),
    ])
    expect(messages[0]).not.toMatch(/rebuild/)
  })

  it("uses better-sqlite3 without a word where the runtime has no node:sqlite and none was asked for", () => {
    const { messages, logger } = warnings()
    const opened = openDatabase(":memory:", {
      logger,
      drivers: { betterSqlite3: nodeSqliteOrFail, nodeSqlite: () => undefined },
    })
    expect(opened.driver).toBe("better-sqlite3")
    expect(messages).toEqual([])
    opened.db.close()
  })

  it("warns when node:sqlite was asked for and the runtime has none", () => {
    const { messages, logger } = warnings()
    const opened = openDatabase(":memory:", {
      driver: "node:sqlite",
      logger,
      drivers: { betterSqlite3: nodeSqliteOrFail, nodeSqlite: () => undefined },
      runtime: { name: "Node", version: "20.20.2" },
    })
    expect(opened.driver).toBe("better-sqlite3")
    expect(messages).toEqual([
      expect.stringMatching(
        /Node 20\.20\.2 has no node:sqlite \(Node has it from 22\.13\); opened ":memory:" with better-sqlite3/,
      ),
    ])
    opened.db.close()
  })

  it("gives the warning to the process, under a stable code, when the host gives no logger", async () => {
    const seen: Error[] = []
    const listener = (warning: Error) => void seen.push(warning)
    process.on("warning", listener)
    try {
      openDatabase(":memory:", { driver: "better-sqlite3", drivers: withNodeSqlite(broken) }).db.close()
      // process.emitWarning emits on the next tick.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off("warning", listener)
    }
    expect(seen.map((warning) => (warning as Error & { code?: string }).code)).toEqual([
      "AGENTLOOP_SQLITE_DRIVER_FALLBACK",
    ])
    expect(seen[0]!.message).toMatch(/better-sqlite3 cannot load in/)
  })
})

describe("openDatabase with no usable driver", () => {
  const none: Drivers = { betterSqlite3: () => undefined, nodeSqlite: () => undefined }
  const attempt = (drivers: Drivers, runtime: { name: "Node" | "Bun" | "Deno"; version: string }) => {
    try {
      openDatabase(newFile(), { drivers, runtime })
    } catch (error) {
      expect(SqliteOpenError.isInstance(error)).toBe(true)
      return error as SqliteOpenError
    }
    throw new Error("opened")
  }

  it("tells Node without node:sqlite to upgrade, or to install better-sqlite3", () => {
    const error = attempt(none, { name: "Node", version: "20.20.2" })
    expect(error.message).toMatch(/Node 20\.20\.2 has no node:sqlite and better-sqlite3 is not installed/)
    expect(error.message).toMatch(/npm install better-sqlite3/)
    expect(error.message).toMatch(/upgrade Node to 22\.13 or later/)
  })

  it("tells Node with a better-sqlite3 that cannot load to rebuild it, with the load error as cause", () => {
    const error = attempt({ ...none, betterSqlite3: broken }, { name: "Node", version: "22.12.0" })
    expect(error.message).toMatch(
      /better-sqlite3 is installed but cannot load \(.*NODE_MODULE_VERSION 115\.\)/,
    )
    expect(error.message).toMatch(/npm rebuild better-sqlite3/)
    expect(error.message).toMatch(/upgrade Node to 22\.13 or later/)
    expect((error.cause as Error & { code: string }).code).toBe("ERR_DLOPEN_FAILED")
  })

  it("tells Bun and Deno to upgrade, or to install or update better-sqlite3, which loads there from 13 on", () => {
    for (const [name, version] of [
      ["Bun", "1.1.0"],
      ["Deno", "2.0.0"],
    ] as const) {
      const missing = attempt(none, { name, version }).message
      expect(missing).toMatch(`${name} ${version} has no node:sqlite and better-sqlite3 is not installed`)
      expect(missing).toMatch(/npm install better-sqlite3\b/)
      expect(missing).toMatch(`upgrade ${name} (${name.toLowerCase()} upgrade;`)
      const unloadable = attempt({ ...none, betterSqlite3: broken }, { name, version }).message
      expect(unloadable).toMatch(
        `${name} ${version} has no node:sqlite, and better-sqlite3 is installed but cannot load`,
      )
      expect(unloadable).toMatch("Update it (npm install better-sqlite3@latest; 13 and later come prebuilt)")
      expect(unloadable).not.toMatch(/rebuild/)
    }
  })
})

describe("the better-sqlite3 loader", () => {
  const installed = path.dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json"))

  /**
   * A project folder whose node_modules holds better-sqlite3's JavaScript and, as its compiled
   * addon, a file that is none ("garbage"), or no addon at all ("none": no prebuilt binary either).
   */
  function project(addon: "garbage" | "none" | "no package"): URL {
    const root = fs.mkdtempSync(path.join(directory, "project-"))
    const modules = path.join(root, "node_modules")
    if (addon !== "no package") {
      const copy = path.join(modules, "better-sqlite3")
      fs.mkdirSync(copy, { recursive: true })
      fs.cpSync(path.join(installed, "lib"), path.join(copy, "lib"), { recursive: true })
      fs.copyFileSync(path.join(installed, "package.json"), path.join(copy, "package.json"))
      if (addon === "garbage") {
        fs.mkdirSync(path.join(copy, "build", "Release"), { recursive: true })
        fs.writeFileSync(path.join(copy, "build", "Release", "better_sqlite3.node"), "not a shared library")
      }
    }
    return pathToFileURL(path.join(root, "index.js"))
  }

  it("finds no better-sqlite3 where none is installed", () => {
    expect(runtimeDrivers(project("no package")).betterSqlite3()).toBeUndefined()
  })

  it("fails to load an addon that is not one (as a build for another Node fails), so the storage falls back", async () => {
    const drivers = runtimeDrivers(project("garbage"))
    expect(() => drivers.betterSqlite3()).toThrow(expect.objectContaining({ code: "ERR_DLOPEN_FAILED" }))
    const { messages, logger } = warnings()
    const opened = openDatabase(newFile(), { driver: "better-sqlite3", logger, drivers })
    expect(opened.driver).toBe(hasNodeSqlite ? "node:sqlite" : undefined)
    expect(messages).toEqual([expect.stringMatching(/better-sqlite3 cannot load in/)])
    await works(opened)
  })

  it("refuses better-sqlite3 13 on a Node before 22, where opening a database crashes the process", () => {
    const on = (version: string) => runtimeDrivers(project("none"), { name: "Node", version }).betterSqlite3
    expect(on("20.20.2")).toThrow(
      /better-sqlite3 13\.\d+\.\d+ needs Node 22 or later: on Node 20\.20\.2 it crashes the process .*better-sqlite3@12/,
    )
    // From Node 22 on, the loader goes on to load the addon (none here, so it fails for that).
    expect(on("22.13.0")).toThrow(/better_sqlite3\.node|bindings file|Could not locate/)
    const drivers = { nodeSqlite: () => undefined, betterSqlite3: on("20.20.2") }
    const open = () => openDatabase(newFile(), { drivers, runtime: { name: "Node", version: "20.20.2" } })
    expect(open).toThrow(SqliteOpenError)
    expect(open).toThrow(
      /needs Node 22 or later.*Install better-sqlite3@12 for this Node.*upgrade Node to 22\.13/s,
    )
    expect(open).not.toThrow(/npm rebuild/)
  })

  it("fails to load a better-sqlite3 whose addon was never built", () => {
    expect(() => runtimeDrivers(project("none")).betterSqlite3()).toThrow(
      /better_sqlite3\.node|bindings file/,
    )
  })

  it("uses the installed better-sqlite3 where it loads, and falls back for real, with one warning, where it does not", async () => {
    const loads = sqliteDrivers().includes("better-sqlite3")
    const { messages, logger } = warnings()
    const storage = new SqliteStorage(newFile(), { driver: "better-sqlite3", logger })
    expect(storage.driver).toBe(loads ? "better-sqlite3" : "node:sqlite")
    expect(messages).toHaveLength(loads ? 0 : 1)
    await storage.write([{ type: "value.put", key: "k", value: 1 }])
    expect(await storage.getValue("k")).toBe(1)
    await storage.close()
  })
})

describe("SqliteStorage in a Cloudflare Worker", () => {
  it("is told apart by the Workers user agent, which workerd gives with or without nodejs_compat", () => {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" })
    try {
      expect(currentRuntime().name).toBe("Workers")
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it("names the Durable Object storage instead of advising a driver, whatever the drivers say", () => {
    const runtime = { name: "Workers", version: "workerd" } as const
    for (const drivers of [
      { betterSqlite3: () => undefined, nodeSqlite: () => undefined },
      { betterSqlite3: broken, nodeSqlite: RUNTIME_DRIVERS.nodeSqlite },
    ]) {
      const open = () => openDatabase("agent.db", { drivers, runtime })
      expect(open).toThrow(SqliteOpenError)
      expect(open).toThrow(/A Cloudflare Worker has no file system for a SQLite file/)
      expect(open).toThrow(/DurableObjectSqliteStorage from agentloop-sdk\/storage\/durable-object/)
      expect(open).not.toThrow(/node:sqlite|better-sqlite3/)
    }
  })
})
