// A scripted agent whose real tools, in the sandbox, go for the runtime's own data kept inside its
// directory: the snapshot's git dir and the session database. Run as its own process (as root or
// as nobody) by data-paths-attack.test.ts, which judges on the host. Argument: the directory.
// Prints one JSON line: the git dir, its config before the attacks, the session and each call's result.
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type { MessageV2 } from "../../../src/index.js"
import { GitSnapshot } from "../../../src/snapshot/git/index.js"
import { SqliteStorage } from "../../../src/storage/sqlite/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { codingTools } from "../../../src/tools/index.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"

/** The bash commands the agent runs, given where the data lies. */
export function attacks(input: { dataDir: string; gitDir: string; project: string }): string[] {
  const { dataDir, gitDir } = input
  const hook = `#!/bin/sh\\ntouch ${input.project}/hook-ran\\n`
  return [
    `ls -A ${dataDir}; cat ${gitDir}/HEAD`,
    `mkdir -p ${gitDir}/hooks && printf '${hook}' > ${gitDir}/hooks/post-checkout; printf '[core]\\n\\thooksPath = hooks\\n' >> ${gitDir}/config`,
    `mv .agentloop .agentloop-moved; mv ${dataDir} moved-data; mkdir -p ${gitDir}/hooks; printf '${hook}' > ${gitDir}/hooks/post-checkout`,
    "exec 3<>sessions.db && echo OPENED; echo garbage >> sessions.db; cat sessions.db | head -c 15",
    "rm -f sessions.db sessions.db-wal sessions.db-shm; mv sessions.db moved.db",
    "printf 'not a journal' > sessions.db-journal; printf 'not a wal' >> sessions.db-wal; ls sessions.db*",
  ]
}

async function main() {
  const project = process.argv[2]!
  const dataDir = join(project, ".agentloop/snapshot")
  const storage = new SqliteStorage(join(project, "sessions.db"))
  const snapshot = new GitSnapshot({ directory: project, dataDir, exclude: ["sessions.db"] })
  await snapshot.track()
  // As root, commands run as the directory's owner: what the attack aims at is given to that user,
  // so that only the sandbox, not file modes, stands in its way.
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "65534:65534", project])
  const gitDir = join(dataDir, createHash("sha256").update(project).digest("hex").slice(0, 32))
  const config = await readFile(join(gitDir, "config"), "utf8")
  const commands = attacks({ dataDir, gitDir, project })
  const { runtime } = createTestRuntime({
    directory: project,
    storage,
    snapshot,
    tools: codingTools({ directory: project, operations: sandboxOperations({ directory: project }) }),
    permission: [{ permission: "*", pattern: "*", action: "allow" }],
    turns: [
      ...commands.map((command) => [say.toolCall("bash", { command, description: "Try" })]),
      [say.toolCall("write", { filePath: "sessions.db-journal", content: "not a journal" })],
      [say.toolCall("write", { filePath: `${gitDir}/hooks/post-checkout`, content: "#!/bin/sh\n" })],
      [
        say.toolCall("edit", {
          filePath: `${gitDir}/config`,
          oldString: "[core]",
          newString: "[core]\n\tbare = false",
        }),
      ],
      [say.toolCall("read", { filePath: "sessions.db" })],
      [say.toolCall("glob", { pattern: "**/config" })],
      [say.text("done")],
    ],
  })
  const session = await runtime.session.create({ title: "attack" })
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  const results = (await runtime.session.messages(session.id))
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")
    .map((part) => ({
      tool: part.tool,
      status: part.state.status,
      text:
        part.state.status === "completed"
          ? part.state.output
          : part.state.status === "error"
            ? part.state.error
            : "",
    }))
  await runtime.close()
  console.log(JSON.stringify({ gitDir, config, sessionID: session.id, commands: commands.length, results }))
}

if (process.argv[1]?.endsWith("data-paths-agent.ts")) await main()
