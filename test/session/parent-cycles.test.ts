import { describe, expect, it } from "vitest"
import { type SqliteDriver, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { driverRoles } from "../fixtures/sqlite-driver-roles.js"
import { wrappedConnection } from "../fixtures/sqlite-raw.js"
import { recordingRuntime } from "./helpers.js"

/**
 * A storage holding parent links that loop, as a file written before cycles were refused
 * would: the links are changed behind the adapter's back.
 */
async function storageWithLoops(driver: SqliteDriver) {
  const db = wrappedConnection(":memory:", driver, (_, statement) => statement)
  const storage = new SqliteStorage(db)
  const build = createBuilders()
  const looped = build.session()
  const partner = build.session({ parentID: looped.id })
  const underPartner = build.session({ parentID: partner.id })
  const selfParented = build.session()
  await storage.write(
    [looped, partner, underPartner, selfParented].map((info) => ({ type: "session.put" as const, info })),
  )
  const setParent = (id: string, parentID: string) =>
    db.prepare("UPDATE session SET parent_id = ? WHERE id = ?").run(parentID, id)
  setParent(looped.id, partner.id)
  setParent(selfParented.id, selfParented.id)
  return { storage, looped, partner, underPartner, selfParented }
}

describe.each(driverRoles().drivers)(
  "session.remove with parent links that loop (SQLite on %s)",
  (driver) => {
    it("removes each session of a looping tree once, and ends", async () => {
      const { storage, looped, partner, underPartner } = await storageWithLoops(driver)
      const { runtime, events } = recordingRuntime({ storage })
      await runtime.session.remove(looped.id)
      const deleted = events.filter((event) => event.type === "session.deleted")
      expect(deleted.map((event) => event.properties.sessionID).sort()).toEqual(
        [looped.id, partner.id, underPartner.id].sort(),
      )
      for (const id of [looped.id, partner.id, underPartner.id])
        expect(await storage.getSession(id)).toBeUndefined()
      await runtime.close()
    })

    it("removes a session that is its own parent", async () => {
      const { storage, selfParented } = await storageWithLoops(driver)
      const { runtime, events } = recordingRuntime({ storage })
      await runtime.session.remove(selfParented.id)
      expect(events.map((event) => [event.type, event.properties.sessionID])).toEqual([
        ["session.deleted", selfParented.id],
      ])
      expect(await storage.getSession(selfParented.id)).toBeUndefined()
      await runtime.close()
    })
  },
)
