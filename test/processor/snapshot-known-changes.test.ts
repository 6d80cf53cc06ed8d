import path from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, type Snapshot, Tool } from "../../src/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"
import { fakeSnapshot } from "../snapshot/fake-snapshot.js"

/**
 * What a step asks of the Snapshot port: a scan at a turn's first step and after a step that ran
 * a tool which does not declare its file changes; otherwise the declared files, from the state
 * the step started in, which is the state the step before it ended in.
 */

const directory = path.resolve("/work/project")

/** A fake snapshot that records each call with what the caller said it knew. */
function recordingSnapshot() {
  const fake = fakeSnapshot()
  const calls: string[] = []
  const said = (known?: Snapshot.Known) =>
    known
      ? ` from ${known.from} changed [${known.changed.map((file) => path.relative(directory, file))}]`
      : ""
  const snapshot: Snapshot = {
    ...fake.snapshot,
    async track(known) {
      const hash = await fake.snapshot.track()
      calls.push(`track${said(known)} -> ${hash}`)
      return hash
    },
    async patch(hash, known) {
      calls.push(`patch ${hash}${said(known)}`)
      return fake.snapshot.patch(hash)
    },
  }
  return { snapshot, files: fake.files, calls }
}

function tools(files: Map<string, string>) {
  const put = Tool.define("put", {
    description: "Writes a file, declaring it",
    parameters: z.object({ file: z.string(), text: z.string() }),
    fileChanges: "declared",
    async execute({ file, text }, context) {
      context.willChange?.(file)
      files.set(path.relative(directory, path.resolve(directory, file)), text)
      return "written"
    },
  })
  const look = Tool.define("look", {
    description: "Reads a file",
    parameters: z.object({ file: z.string() }),
    fileChanges: "none",
    execute: async ({ file }) => files.get(file) ?? "",
  })
  const shell = Tool.define("shell", {
    description: "Runs a command, which may change any file",
    parameters: z.object({ file: z.string(), text: z.string() }),
    async execute({ file, text }) {
      files.set(file, text)
      return "done"
    },
  })
  return [put, look, shell]
}

async function run(turns: Turn[], prompts = 1) {
  const recording = recordingSnapshot()
  const { runtime } = createTestRuntime({
    directory,
    tools: tools(recording.files),
    snapshot: recording.snapshot,
    turns,
  })
  const session = await runtime.session.create()
  for (let prompt = 0; prompt < prompts; prompt++)
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: `go ${prompt}` }] })
  const parts = (await runtime.session.messages(session.id)).flatMap((message) => message.parts)
  return { ...recording, parts }
}

const snapshots = (parts: MessageV2.Part[]) =>
  parts.flatMap((part) =>
    part.type === "step-start" || part.type === "step-finish" ? [`${part.type} ${part.snapshot}`] : [],
  )

describe("SessionProcessor with tools that declare their file changes", () => {
  it("records a step of declared changes from the step's start, and starts the next step where it ended", async () => {
    const { calls, parts } = await run([
      [
        say.toolCall("put", { file: "a.ts", text: "a" }),
        say.toolCall("put", { file: `${directory}/b.ts`, text: "b" }),
      ],
      [say.toolCall("look", { file: "a.ts" })],
      [say.text("done")],
    ])
    expect(calls).toEqual([
      // The turn's first step: a scan, while the provider answers.
      "track -> tree-0",
      "track from tree-0 changed [a.ts,b.ts] -> tree-1",
      "patch tree-0 from tree-1 changed []",
      // The next steps start from tree-1 without asking the snapshot.
      "track from tree-1 changed [] -> tree-2",
      "patch tree-1 from tree-2 changed []",
      "track from tree-2 changed [] -> tree-3",
      "patch tree-2 from tree-3 changed []",
    ])
    expect(snapshots(parts)).toEqual([
      "step-start tree-0",
      "step-finish tree-1",
      "step-start tree-1",
      "step-finish tree-2",
      "step-start tree-2",
      "step-finish tree-3",
    ])
    expect(parts.find((part) => part.type === "patch")).toMatchObject({
      hash: "tree-0",
      files: ["a.ts", "b.ts"],
    })
  })

  it("scans at the end of a step that ran a tool which does not declare its changes", async () => {
    const { calls } = await run([
      [say.toolCall("put", { file: "a.ts", text: "a" }), say.toolCall("shell", { file: "c.ts", text: "c" })],
      [say.toolCall("put", { file: "a.ts", text: "again" })],
      [say.text("done")],
    ])
    expect(calls).toEqual([
      "track -> tree-0",
      "track -> tree-1",
      "patch tree-0 from tree-1 changed []",
      "track from tree-1 changed [a.ts] -> tree-2",
      "patch tree-1 from tree-2 changed []",
      "track from tree-2 changed [] -> tree-3",
      "patch tree-2 from tree-3 changed []",
    ])
  })

  it("scans at the first step of every turn: files may have changed between turns", async () => {
    const { calls } = await run(
      [[say.toolCall("put", { file: "a.ts", text: "a" })], [say.text("one")], [say.text("two")]],
      2,
    )
    expect(calls.filter((call) => call.startsWith("track"))).toEqual([
      "track -> tree-0",
      "track from tree-0 changed [a.ts] -> tree-1",
      "track from tree-1 changed [] -> tree-2",
      "track -> tree-3",
      "track from tree-3 changed [] -> tree-4",
    ])
  })
})
