// README's main example (the first ```ts block under "## Use it") run as a reader runs it,
// `tsx main.ts` in their project, with its provider pointed at a local fake Anthropic server
// and the permission question answered on stdin once it is asked.
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { fakeAnswer, startFakeAnthropic } from "./fake-anthropic.js"

export type Outcome = { ok: boolean; output: string }

/** The code of the first ```ts block in README's "Use it" section. */
export function readmeMainExample(readme: string): string {
  const text = readFileSync(readme, "utf8")
  const section = text.split(/^## Use it$/m)[1]?.split(/^## /m)[0] ?? ""
  const code = /^```ts\n([\s\S]*?)^```/m.exec(section)?.[1]
  if (!code) throw new Error(`${readme}: no \`\`\`ts block under "## Use it"`)
  return code
}

type Run = { code: number | null; stdout: string; stderr: string; timedOut: boolean }

const timeoutMs = 60_000

/** Runs `main.ts` in `cwd` with tsx, typing `answer` at the permission question. */
function runMain(cwd: string, tsx: string, env: Record<string, string>, answer: string): Promise<Run> {
  const child = spawn(process.execPath, ["--import", pathToFileURL(tsx).href, "main.ts"], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  // readline drops a line that arrives before its question, so the answer waits for the prompt.
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
    if (stdout.includes("[y/N]") && child.stdin.writable) child.stdin.end(`${answer}\n`)
  })
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, timedOut: signal === "SIGKILL" })
    })
  })
}

/** Runs the example once against a fresh fake server and checks what a reader would see. */
async function runAgainstFake(
  project: string,
  tsx: string,
  answer: "y" | "n",
): Promise<{ failures: string[]; stdout: string; details: string }> {
  const server = await startFakeAnthropic()
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test" }
  const run = await runMain(project, tsx, env, answer).finally(() => server.close())
  const failures: string[] = []
  if (run.timedOut) failures.push(`killed after ${timeoutMs / 1000} s`)
  if (run.code !== 0) failures.push(`exit code ${run.code}`)
  if (!run.stdout.includes("[y/N]")) failures.push("the permission question was never asked")
  failures.push(...server.problems)
  const expected = answer === "y" ? 2 : 1
  if (server.requests.length !== expected)
    failures.push(`the server saw ${server.requests.length} requests, expected ${expected}`)
  const details = [
    `--- stdout\n${run.stdout}`,
    `--- stderr\n${run.stderr}`,
    `--- requests\n${JSON.stringify(server.requests.map((request) => request.messages))}`,
  ].join("\n")
  return { failures, stdout: run.stdout, details }
}

/** The refund approved: the answer is printed with its cost, and the session is on disk. */
export async function approvedRun(project: string, tsx: string): Promise<Outcome & { cost: string }> {
  const { failures, stdout, details } = await runAgainstFake(project, tsx, "y")
  const cost = /\$(\d+\.\d+)/.exec(stdout)?.[1] ?? ""
  if (!stdout.includes(fakeAnswer)) failures.push(`stdout lacks the answer "${fakeAnswer}"`)
  if (!(Number(cost) > 0)) failures.push(`stdout shows no cost above $0 (found "${cost}")`)
  if (!existsSync(join(project, "sessions.db"))) failures.push("no sessions.db in the project")
  return { ok: failures.length === 0, output: [...failures, details].join("\n"), cost }
}

/** The refund refused: the turn ends with finish reason `rejected` after the first request. */
export async function rejectedRun(project: string, tsx: string): Promise<Outcome> {
  const { failures, stdout, details } = await runAgainstFake(project, tsx, "n")
  if (!/\brejected\b/.test(stdout)) failures.push(`stdout does not say "rejected"`)
  return { ok: failures.length === 0, output: [...failures, details].join("\n") }
}
