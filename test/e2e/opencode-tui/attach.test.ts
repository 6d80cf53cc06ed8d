// OpenCode's own terminal UI (`opencode attach <url>`, npm package opencode-ai) driving our
// server in tmux, as a user would: a prompt, a bash permission approved in its dialog, a
// question answered in its dialog, a file written (its content shown), the answer on screen, then
// /diff's viewer; before the prompt, the project's skill in the /skills dialog. The screens are kept as CI artifacts (screens.ts). Without the binary or tmux
// the suite is skipped loudly, except in CI, where it fails: .ci/run installs both.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MessageV2, Permission } from "../../../src/index.js"
import { createServer, type RunningServer, serve } from "../../../src/server/index.js"
import { createTestRuntime, say, type TestRuntime, type Turn } from "../../../src/testing/index.js"
import { loadCodingPreset } from "../../../src/tools/index.js"
import { findRequirements, INSTALL_HINT, tuiEnvironment, tuiLogDirectory } from "./opencode-tui.js"
import { artifactDirectory, resetArtifacts, saveFailure, saveFinalScreen } from "./screens.js"
import { startTmux, type Tmux } from "./tmux.js"

const requirements = findRequirements()
const inCI = Boolean(process.env.CI)
if (requirements.missing && !inCI)
  console.warn(`SKIPPED: opencode TUI e2e: ${requirements.missing}; ${INSTALL_HINT}`)

/** Each screen is waited for this long at most; the first one longer, as the binary starts. */
const WAIT_MS = 20_000
const START_MS = 30_000

const ANSWER = "All done: checked, Blue."
const WRITTEN = "colour = blue"
/** A skill of the project, which the TUI's /skills dialog lists. */
const SKILL = "palette-guide"

/** What the scripted model does: run bash, ask a question, write a file, answer with the results. */
const SCRIPT: Turn[] = [
  [
    say.text("Let me check."),
    say.toolCall("bash", { command: "echo checked", description: "Print checked" }),
  ],
  [
    say.toolCall("question", {
      questions: [
        {
          question: "Which colour?",
          header: "Colour",
          options: [
            { label: "Red", description: "The warm one" },
            { label: "Blue", description: "The cool one" },
          ],
        },
      ],
    }),
  ],
  [say.toolCall("write", { filePath: "colour.txt", content: `${WRITTEN}\n` })],
  [say.text(ANSWER)],
]

const skipped = requirements.missing !== undefined && !inCI

describe.skipIf(skipped)("OpenCode's terminal UI attached to our server", () => {
  const artifacts = artifactDirectory()
  const requests: string[] = []
  const replies: { permission: string[]; question: string[][][] } = { permission: [], question: [] }
  const idle: string[] = []
  let directory: string
  let home: string
  let test: TestRuntime
  let server: RunningServer | undefined
  let tmux: Tmux | undefined

  beforeAll(async () => {
    await resetArtifacts(artifacts)
    directory = await mkdtemp(join(tmpdir(), "agentloop-tui-project-"))
    home = await mkdtemp(join(tmpdir(), "agentloop-tui-home-"))
    await mkdir(join(directory, ".claude/skills", SKILL), { recursive: true })
    await writeFile(
      join(directory, ".claude/skills", SKILL, "SKILL.md"),
      `---\nname: ${SKILL}\ndescription: Picks colours for the project\n---\n\nPrefer blue.\n`,
    )
    // The preset as a coding CLI loads it: the skill tool, and the skill as a command.
    const preset = await loadCodingPreset({ directory })
    test = createTestRuntime({
      ...preset,
      question: true,
      // The real bash tool asks, so that the TUI shows its permission dialog.
      permission: Permission.fromConfig({ bash: "ask" }),
      turns: SCRIPT,
    })
    const { runtime } = test
    runtime.events.on("permission.replied", (event) => void replies.permission.push(event.properties.reply))
    runtime.events.on("question.replied", (event) => void replies.question.push(event.properties.answers))
    runtime.events.on("session.idle", (event) => void idle.push(event.properties.sessionID))
    const app = createServer(runtime)
    // Every request and its status, for requests.txt when the test fails (a 404 ends the TUI).
    server = await serve(
      {
        fetch: async (request) => {
          const response = await app.fetch(request)
          const url = new URL(request.url)
          requests.push(`${request.method} ${url.pathname}${url.search} ${response.status}`)
          return response
        },
      },
      { port: 0 },
    )
  })

  afterAll(async () => {
    await tmux?.kill()
    await server?.close()
    await test?.runtime.close()
    await Promise.all([directory, home].map((path) => path && rm(path, { recursive: true, force: true })))
  })

  it("runs a prompt: bash approved in the permission dialog, a question answered, a write shown with its content, the answer shown; /diff opens", async ({
    onTestFailed,
  }) => {
    onTestFailed(async () => {
      await saveFailure(artifacts, {
        screens: tmux?.screens ?? [],
        requests,
        logDirectory: tuiLogDirectory(home),
      })
    })
    if (requirements.bin === undefined)
      throw new Error(`opencode TUI e2e cannot run in CI: ${requirements.missing}`)
    tmux = await startTmux({
      command: [requirements.bin, "attach", server!.url],
      cwd: directory,
      env: tuiEnvironment(home),
      width: 160,
      height: 45,
    })

    await tmux.waitForScreen(/Ask anything/, { what: "the prompt box", timeoutMs: START_MS })
    // /skills opens the skills dialog (GET /skill), listing the project's skill; Escape closes it.
    await tmux.type("/skills")
    await tmux.waitForScreen(/browse|Skills/, {
      what: "the /skills command in the / menu",
      timeoutMs: WAIT_MS,
    })
    await tmux.sendKeys("Enter")
    await tmux.waitForScreen((screen) => /Search skills/.test(screen) && screen.includes(SKILL), {
      what: "the skill in the skills dialog",
      timeoutMs: WAIT_MS,
    })
    await tmux.sendKeys("Escape")
    await tmux.waitForScreen((screen) => !screen.includes(SKILL) && /Ask anything/.test(screen), {
      what: "the prompt box again",
      timeoutMs: WAIT_MS,
    })
    await tmux.type("Check the colour")
    await tmux.waitForScreen(/┃\s+Check the colour/, { what: "the typed prompt", timeoutMs: WAIT_MS })
    await tmux.sendKeys("Enter")

    // "Allow once" is the dialog's first choice, selected when it opens.
    await tmux.waitForScreen((screen) => /Permission required/.test(screen) && /Allow once/.test(screen), {
      what: "the permission dialog",
      timeoutMs: WAIT_MS,
    })
    await tmux.sendKeys("Enter")

    // A digit picks that option, and with a single question submits it.
    await tmux.waitForScreen((screen) => /Which colour\?/.test(screen) && /2\. Blue/.test(screen), {
      what: "the question dialog",
      timeoutMs: WAIT_MS,
    })
    await tmux.sendKeys("2")

    await tmux.waitForScreen((screen) => screen.includes(ANSWER), {
      what: "the answer",
      timeoutMs: WAIT_MS,
    })
    // A completed write shows its file's content, as OpenCode's does, not one line.
    await tmux.waitForScreen((screen) => /Wrote colour\.txt/.test(screen) && screen.includes(WRITTEN), {
      what: "the written file's content",
      timeoutMs: WAIT_MS,
    })

    // /diff opens the diff viewer on the working tree (GET /vcs/diff); a 404 there ended the UI.
    await tmux.type("/diff")
    await tmux.waitForScreen(/┃\s+\/diff/, { what: "the typed /diff", timeoutMs: WAIT_MS })
    await tmux.sendKeys("Enter")
    await tmux.waitForScreen(/working tree/, { what: "the diff viewer", timeoutMs: WAIT_MS })
    await saveFinalScreen(artifacts, tmux.screens)

    // Every read of the UI was answered: the diff viewer's GET /vcs/diff included.
    expect(requests.filter((line) => line.endsWith(" 404"))).toEqual([])
    expect(requests.some((line) => line.startsWith("GET /vcs/diff?"))).toBe(true)
    const { runtime } = test
    const [session, ...others] = await runtime.session.list()
    expect(others).toEqual([])
    await expect.poll(() => idle, { timeout: WAIT_MS }).toContain(session!.id)
    test.verify()
    expect(replies).toEqual({ permission: ["once"], question: [[["Blue"]]] })
    const messages = await runtime.session.messages(session!.id)
    const tools = messages
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")
    expect(tools.map((part) => [part.tool, part.state.status])).toEqual([
      ["bash", "completed"],
      ["question", "completed"],
      ["write", "completed"],
    ])
    const bash = tools[0]!.state
    expect(bash.status === "completed" && bash.output).toContain("checked")
    const last = messages.at(-1)
    expect(last?.info.role).toBe("assistant")
    const texts = last?.parts.filter((part): part is MessageV2.TextPart => part.type === "text")
    expect(texts?.map((part) => part.text)).toEqual([ANSWER])
  }, 120_000)
})
