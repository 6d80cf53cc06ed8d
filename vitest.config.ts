import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  // The examples import "agentloop-sdk" as a user would; tsconfig's paths point that at src/.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    globalSetup: ["test/setup/postgres.ts"],
    // vitest's default is one worker fewer than the cores: one, on CI's two. Many test files
    // spend their time waiting on other processes (git, bwrap, PostgreSQL, SQLite locks, a
    // child killed and restarted), so a worker per core keeps both busy: the unit suite went
    // from about 500 s to 340 s of wall time on the 2-core machine (Node 24, 236 files).
    maxWorkers: Math.max(2, availableParallelism()),
  },
})
