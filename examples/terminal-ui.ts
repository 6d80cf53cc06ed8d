/**
 * OpenCode's terminal UI on an agentloop agent: this module's default export is the runtime's
 * options, which `agentloop-sdk serve` serves over OpenCode's server API. A coding agent in a
 * fresh demo project: it asks before each shell command, and (offline, with the scripted model)
 * lists the files, asks which one to summarise, and answers.
 *
 *   npx tsx src/cli/bin.ts serve examples/terminal-ui.ts   # in this repository; else npx agentloop-sdk serve
 *   opencode attach http://127.0.0.1:4096                  # in another terminal (npm i -g opencode-ai)
 *
 * Then type a prompt ("What is in this project?"), approve the command, pick a file.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RuntimeOptions } from "agentloop-sdk"
import { say, type Turn } from "agentloop-sdk/testing"
import { codingPreset } from "agentloop-sdk/tools"
import { chooseModel } from "./choose-model.js"

const directory = mkdtempSync(join(tmpdir(), "agentloop-terminal-ui-"))
writeFileSync(join(directory, "README.md"), "# Demo project\nA tiny project for OpenCode's terminal UI.\n")
writeFileSync(join(directory, "package.json"), '{ "name": "demo", "version": "1.0.0" }\n')

/** The story the scripted model plays when no real model is configured. */
const SCRIPT: Turn[] = [
  [
    say.reasoning("The user wants to know the project. Listing its files first."),
    say.text("Let me look at the project's files.", { chunks: 6 }),
    say.toolCall("bash", { command: "ls -la", description: "List the project's files" }),
  ],
  [
    say.toolCall("question", {
      questions: [
        {
          question: "Which file should I summarise?",
          header: "File",
          options: [
            { label: "README.md", description: "The project's readme" },
            { label: "package.json", description: "The package manifest" },
          ],
        },
      ],
    }),
  ],
  [say.text("It is a tiny demo project made for OpenCode's terminal UI on agentloop.", { chunks: 10 })],
]

const { label, language, info } = chooseModel(SCRIPT, [
  say.text("The scripted story is over: set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real model."),
])
console.log(`Model: ${label}`)
console.log(`Project: ${directory}`)

const preset = codingPreset({ directory })
export default {
  ...preset,
  model: { language, info },
  // Ask before each shell command, so that the terminal UI shows its permission dialog.
  permission: [{ permission: "bash", pattern: "*", action: "ask" }],
} satisfies RuntimeOptions
