import { defineConfig, type Options } from "tsup"

const library: Options = {
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    "storage/sqlite/index": "src/storage/sqlite/index.ts",
    "storage/postgres/index": "src/storage/postgres/index.ts",
    "storage/durable-object/index": "src/storage/durable-object/index.ts",
    "snapshot/git/index": "src/snapshot/git/index.ts",
    "tools/index": "src/tools/index.ts",
    "server/index": "src/server/index.ts",
  },
  format: ["esm", "cjs"],
  dts: false,
  sourcemap: false,
  target: "node22",
  shims: true,
  removeNodeProtocol: false,
  splitting: true,
  // dist/cli is the other build's
  clean: ["!cli/**"],
}

// The `agentloop-sdk` command (package.json "bin"), ESM only. Its imports of the library's entry
// points stay imports of the built entries beside it (dist/index.js...), so the CLI and the module
// it serves share one copy of the library; the optional packages it loads are the user's.
const cli: Options = {
  entry: { bin: "src/cli/bin.ts" },
  outDir: "dist/cli",
  format: ["esm"],
  sourcemap: false,
  clean: true,
  target: "node22",
  removeNodeProtocol: false,
  external: [
    "../index.js",
    "../server/index.js",
    "../snapshot/git/index.js",
    "../tools/index.js",
    "tsx/esm/api",
    /^@ai-sdk\//,
  ],
}

export default defineConfig([library, cli])
