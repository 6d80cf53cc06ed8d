import { describe, expect, it } from "vitest"
import { createShapeChecker } from "./openapi-check.js"

const openapi = createShapeChecker()

/** A Session as OpenCode 1.18.33's `opencode serve` answered POST /session (IDs shortened). */
const session = {
  id: "ses_de102a458ffeJkOaHrW8tEHRrB",
  slug: "quiet-eagle",
  projectID: "4967b3d7f716f1401db795ff4ba6073446306535",
  directory: "/tmp/project",
  title: "New session",
  version: "1.18.33",
  time: { created: 1795816250390, updated: 1795816250390 },
}

const textPart = {
  id: "prt_1",
  sessionID: session.id,
  messageID: "msg_1",
  type: "text",
  text: "Hello",
}

describe("expectShape", () => {
  it("accepts an answer that matches the operation's 200 schema", () => {
    expect(() => openapi.expectShape("session.create", session)).not.toThrow()
    expect(() => openapi.expectShape("session.list", [session])).not.toThrow()
    expect(() => openapi.expectShape("session.abort", true)).not.toThrow()
  })

  it("lists what does not match: where, what, and the value found there", () => {
    const { projectID: _, ...withoutProject } = session
    const wrong = { ...withoutProject, time: { created: "yesterday", updated: 1 }, extra: 1 }
    const lines = catchError(() => openapi.expectShape("session.get", wrong)).split("\n")
    expect(lines[0]).toBe("session.get: the answer does not match OpenCode's schema:")
    expect(lines[1]).toMatch(/^ {2}\(root\) must have required property 'projectID'; value: \{"id":"ses_/)
    expect(lines[2]).toMatch(/^ {2}\(root\) must NOT have additional properties "extra"; value: /)
    expect(lines[3]).toBe('  /time/created must be integer; value: "yesterday"')
    expect(lines).toHaveLength(4)
  })

  it("reports only the errors of the union member a tag names", () => {
    const message = { info: { id: "msg_1", sessionID: session.id, role: "assistant" }, parts: [textPart] }
    const error = catchError(() => openapi.expectShape("session.messages", [message]))
    expect(error).toContain("/0/info must have required property 'mode'")
    expect(error).not.toContain("'summary'") // a UserMessage field: that branch is not reported
    const unknown = catchError(() =>
      openapi.expectShape("session.messages", [{ ...message, parts: [{ type: "x" }] }]),
    )
    expect(unknown).toContain('/0/parts/0 value of tag "type" must be in oneOf (x)')
  })

  it("uses the first 2xx status when there is no 200, and expects no body for a 204", () => {
    expect(openapi.successStatus("session.prompt_async")).toBe(204)
    expect(openapi.successStatus("session.abort")).toBe(200)
    expect(() => openapi.expectShape("session.prompt_async", undefined)).not.toThrow()
    expect(() => openapi.expectShape("session.prompt_async", { ok: true })).toThrow("answers with no body")
  })

  it("refuses an operation the document does not have", () => {
    expect(() => openapi.expectShape("session.nope", {})).toThrow('no operation "session.nope"')
  })
})

describe("expectEventShape", () => {
  const partUpdated = {
    id: "evt_1",
    type: "message.part.updated",
    properties: { sessionID: session.id, part: textPart, time: 1795816250400 },
  }

  it("accepts an event of /event and names what a wrong one lacks", () => {
    expect(() => openapi.expectEventShape(partUpdated)).not.toThrow()
    const { id: _, ...withoutID } = partUpdated
    expect(() => openapi.expectEventShape(withoutID)).toThrow("(root) must have required property 'id'")
    const { time: __, ...untimed } = partUpdated.properties
    expect(() => openapi.expectEventShape({ ...partUpdated, properties: untimed })).toThrow(
      "/properties must have required property 'time'",
    )
  })

  it("accepts a /global/event event, and server.connected without a directory as OpenCode sends it", () => {
    const global = { directory: "/tmp/project", payload: partUpdated }
    expect(() => openapi.expectGlobalEventShape(global)).not.toThrow()
    const connected = { payload: { id: "evt_2", type: "server.connected", properties: {} } }
    expect(() => openapi.expectGlobalEventShape(connected)).not.toThrow()
    expect(() => openapi.expectGlobalEventShape({ payload: partUpdated })).toThrow(
      "(root) must have required property 'directory'",
    )
  })
})

function catchError(run: () => void): string {
  try {
    run()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error("expected a throw")
}
