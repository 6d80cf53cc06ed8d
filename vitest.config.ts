import { defineConfig } from "vitest/config"

export default defineConfig({
  // The examples import "agentloop-sdk" as a user would; tsconfig's paths point that at src/.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    globalSetup: ["test/setup/postgres.ts"],
  },
})
