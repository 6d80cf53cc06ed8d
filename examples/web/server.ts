/**
 * A chat page for an agentloop runtime, served with its HTTP API (agentloop-sdk/server) on one
 * origin: streamed answers, tool calls with their state, and dialogs for permission prompts and
 * questions. Offline, a scripted model plays a short story (list the files, which asks you;
 * ask which file to read; read it; answer). Set ANTHROPIC_API_KEY, OPENAI_API_KEY, or
 * AGENTLOOP_BASE_URL (an OpenAI-compatible server) with AGENTLOOP_MODEL, for a real model.
 *
 *   npm run demo:web            # then open the printed URL
 *   PORT=8080 npm run demo:web  # a fixed port (default: any free one)
 *
 * The page lives in examples/web/public/ (plain HTML and ES modules, no build step). It talks to
 * the routes of docs/server.md: POST /session, POST /session/:id/prompt_async, GET /event (SSE),
 * the permission and question reply routes, and POST /session/:id/abort for Stop. The agent works
 * on a throwaway directory, deleted on exit. Ctrl-C stops the server.
 */
import { startWebExample } from "./web-example.js"

const example = await startWebExample({ port: Number(process.env.PORT ?? 0) })
console.log(`Model: ${example.model}\nChat page: ${example.url}\n(Ctrl-C to stop)`)

// Ctrl-C, or a process manager's stop: either way the throwaway project is removed.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    console.log("\nStopping...")
    example.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      },
    )
  })
