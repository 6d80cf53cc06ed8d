import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { bundleForWorkerd } from "./bundle.js"

const repo = resolve(import.meta.dirname, "../../..")
const manifest = JSON.parse(readFileSync(resolve(repo, "package.json"), "utf8")) as {
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}
const optionalPeers = Object.keys(manifest.peerDependenciesMeta).filter(
  (name) => manifest.peerDependenciesMeta[name]?.optional,
)
/** `agentloop-sdk/server` needs hono and hono-openapi (its own peers); `serve`'s Node adapter not. */
const serverPeers = ["hono", "hono-openapi"]

function source(file: string): string {
  return JSON.stringify(resolve(repo, "src", file))
}

describe("a Worker bundle (wrangler's esbuild settings)", () => {
  it("bundles the core, the testing kit and the Durable Object storage without any optional peer", async () => {
    const entries = ["index.ts", "testing/index.ts", "storage/durable-object/index.ts"]
    const bundle = await bundleForWorkerd({
      contents: entries.map((entry) => `export * from ${source(entry)}`).join("\n"),
      resolveDir: repo,
      refuse: optionalPeers,
    })
    expect(bundle.errors.map((error) => error.text)).toEqual([])
  }, 30_000)

  it("bundles chatHandler with the server's peers only, not @hono/node-server", async () => {
    const bundle = await bundleForWorkerd({
      contents: `export { chatHandler } from ${source("server/index.ts")}`,
      resolveDir: repo,
      refuse: optionalPeers.filter((name) => !serverPeers.includes(name)),
    })
    expect(bundle.errors.map((error) => error.text)).toEqual([])
  }, 30_000)
})
