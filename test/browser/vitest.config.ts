import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

/**
 * The browser test runs on its own (`npm run test:browser`), out of the unit suite's time
 * budget. The example imports "agentloop-sdk" as a user would; tsconfig's paths point that at
 * src/, so the test drives the code under test rather than a stale build.
 */
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/browser/**/*.browser.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
})
