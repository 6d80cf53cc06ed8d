/**
 * The web example (examples/web) driven in real headless Chromium, as a person would: send a
 * prompt, watch the answer stream in, allow the tool, answer the question, read the final answer.
 * Screenshots land in test/browser/artifacts/. Chromium comes from the system (Debian's
 * `chromium`, or CHROMIUM_PATH); without it the suite is skipped, loudly.
 *
 *   npm run test:browser
 */
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { startWebExample, type WebExample } from "../../examples/web/web-example.js"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const available = existsSync(executablePath)
const artifacts = new URL("./artifacts/", import.meta.url)
/** Every wait in the page is bounded by this; the scripted story takes about a second. */
const WAIT = { timeout: 15_000 }

/**
 * Runs in the page (as text: this project's types have no DOM): records every length the first
 * answer's text had on screen. More than one partial length means the text streamed in.
 */
const RECORD_TEXT_LENGTHS = `{
  const seen = (window.seenLengths = [])
  new MutationObserver(() => {
    const text = document.querySelector("[data-role=assistant] [data-testid=text-part]")
    if (text && seen.at(-1) !== text.textContent.length) seen.push(text.textContent.length)
  }).observe(document.getElementById("messages"), { subtree: true, childList: true, characterData: true })
}`

if (!available)
  console.warn(
    `SKIPPED: the browser test needs Chromium at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`,
  )

// The story must be the scripted one: a key in the environment would switch to a real model.
for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AGENTLOOP_BASE_URL"]) delete process.env[key]

describe.skipIf(!available)("the web example in headless Chromium", () => {
  let example: WebExample
  let browser: Browser

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    rmSync(new URL("chat-failure.png", artifacts), { force: true })
    example = await startWebExample({ port: 0 })
    // No sandbox (CI runs as root); no background networking, updates or sync, which on a
    // machine without a network only produce refused connections and lookups that fail.
    browser = await chromium.launch({
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    })
  })
  afterAll(async () => {
    await browser?.close()
    await example?.close()
  })

  async function openChat(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 960, height: 900 } })
    const errors: string[] = []
    page.on("pageerror", (error) => errors.push(error.message))
    onTestFailed(async () => {
      await page.screenshot({ path: new URL("chat-failure.png", artifacts).pathname, fullPage: true })
      if (errors.length > 0) console.error("Page errors:", errors)
    })
    await page.goto(example.url)
    await page.locator("[data-testid=status][data-status=idle]").waitFor(WAIT)
    return page
  }

  async function send(page: Page, text: string) {
    await page.getByTestId("prompt-input").fill(text)
    await page.getByTestId("send").click()
  }

  it("streams the answer, asks permission and a question, and shows the final answer", async () => {
    const page = await openChat()
    await page.evaluate(RECORD_TEXT_LENGTHS)

    await send(page, "Which files are in the project?")
    await page.locator("[data-role=user]", { hasText: "Which files are in the project?" }).waitFor(WAIT)

    const permission = page.getByTestId("permission-dialog")
    await permission.waitFor({ state: "visible", ...WAIT })
    expect(await permission.getByTestId("permission-name").textContent()).toBe("list")
    const listFiles = page.locator("[data-testid=tool-call][data-tool=list_files]")
    expect(await listFiles.getAttribute("data-status")).toBe("running")
    const firstText = "Let me look at the project files first, then I will ask you which one to read."
    expect(await page.locator("[data-role=assistant] [data-testid=text-part]").first().textContent()).toBe(
      firstText,
    )
    const lengths = (await page.evaluate("window.seenLengths")) as number[]
    expect(lengths.filter((length) => length > 0 && length < firstText.length).length).toBeGreaterThan(1)
    await page.screenshot({ path: new URL("chat-permission.png", artifacts).pathname })

    await permission.getByTestId("permission-once").click()
    await permission.waitFor({ state: "hidden", ...WAIT })
    await page.locator("[data-testid=tool-call][data-tool=list_files][data-status=completed]").waitFor(WAIT)

    const question = page.getByTestId("question-dialog")
    await question.waitFor({ state: "visible", ...WAIT })
    expect(await question.locator("legend").textContent()).toBe("File")
    await question.locator("label.option", { hasText: "README.md" }).click()
    await page.screenshot({ path: new URL("chat-question.png", artifacts).pathname })
    await question.getByTestId("question-submit").click()
    await question.waitFor({ state: "hidden", ...WAIT })

    await page
      .locator("[data-testid=text-part]", {
        hasText: 'You chose README.md. Its first line reads: "# Demo project"',
      })
      .waitFor(WAIT)
    await page.locator("[data-testid=tool-call][data-tool=read_file][data-status=completed]").waitFor(WAIT)
    await page.locator("[data-testid=status][data-status=idle]").waitFor(WAIT)
    expect(await page.getByTestId("session-error").count()).toBe(0)
    expect(await page.getByTestId("send").isEnabled()).toBe(true)
    await page.screenshot({ path: new URL("chat.png", artifacts).pathname, fullPage: true })

    // What the page showed is what the server stored.
    const sessionID = new URL(page.url()).hash.slice(1)
    const stored = (await (await fetch(`${example.url}/session/${sessionID}/message`)).json()) as {
      info: { role: string; finish?: string }
    }[]
    expect(stored.map((message) => message.info.role)).toEqual([
      "user",
      "assistant",
      "assistant",
      "assistant",
      "assistant",
    ])
    expect(stored.at(-1)?.info.finish).toBe("stop")

    // The session is named in the URL: a reload shows the same conversation from storage.
    await page.reload()
    await page.locator("[data-testid=text-part]", { hasText: "You chose README.md." }).waitFor(WAIT)
    expect(await page.getByTestId("tool-call").count()).toBe(3)
    await page.close()
  })

  it("stops a run with Stop, and a rejected permission ends the turn", async () => {
    const page = await openChat()
    await send(page, "First try")
    const permission = page.getByTestId("permission-dialog")
    await permission.waitFor({ state: "visible", ...WAIT })
    await permission.getByTestId("permission-reject").click()
    await page.locator("[data-testid=tool-call][data-tool=list_files][data-status=error]").waitFor(WAIT)
    await page.locator("[data-testid=status][data-status=idle]").waitFor(WAIT)

    // Stop while the answer streams (the modal dialogs keep Stop out of reach while they are open).
    await send(page, "Second try")
    const streaming = page.locator("[data-role=assistant] [data-testid=text-part]").nth(1)
    await streaming.waitFor(WAIT)
    await page.getByTestId("stop").click()
    await page.locator("[data-testid=message-error]", { hasText: "Stopped." }).waitFor(WAIT)
    expect(await page.locator("[data-testid=tool-call][data-tool=list_files]").count()).toBe(1)
    await page.locator("[data-testid=status][data-status=idle]").waitFor(WAIT)
    await page.close()
  })
})
