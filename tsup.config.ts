import { defineConfig } from "tsup"

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    "storage/sqlite/index": "src/storage/sqlite/index.ts",
    "storage/postgres/index": "src/storage/postgres/index.ts",
    "snapshot/git/index": "src/snapshot/git/index.ts",
    "tools/index": "src/tools/index.ts",
    "server/index": "src/server/index.ts",
  },
  format: ["esm", "cjs"],
  dts: false,
  sourcemap: false,
  clean: true,
  target: "node20",
  shims: true,
  removeNodeProtocol: false,
  splitting: true,
})
