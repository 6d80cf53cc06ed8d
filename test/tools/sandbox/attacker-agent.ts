// A scripted agent whose real bash tool, in the sandbox, tries what an attacker would to reach the
// host. Run as its own process (as root or as nobody) by attacker.test.ts, which judges on the
// host. Arguments: the directory, the inherited descriptor to try, and optionally "uid:gid" of the
// user commands run as. Prints one JSON line: each tool call's output, or why the sandbox did not start.
import type { MessageV2 } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { codingTools } from "../../../src/tools/index.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"

/** The most processes the sandbox's user may have; the fork bomb below tries three times as many. */
export const PROCESS_LIMIT = 20

/** The commands the agent runs, by name. */
export function attacks(fd: number): Record<string, string> {
  return {
    corePattern: "exec 3>>/proc/sys/kernel/core_pattern && echo OPENED core_pattern",
    dropCaches: "exec 3>>/proc/sys/vm/drop_caches && echo OPENED drop_caches",
    setuid: "cp /usr/bin/id suid-id && chmod 4755 suid-id && ls -ln suid-id",
    // dash fails a fork at once (bash retries for seconds); each started sleep is counted.
    processes:
      `sh -c 'n=0; while [ $n -lt ${3 * PROCESS_LIMIT} ]; do sleep 30 >/dev/null 2>&1 & n=$((n+1)); echo $n > count; done' 2>&1; ` +
      'echo "started=$(cat count)"',
    inheritedFd: `cat <&${fd}; echo "read-fd-done=$?"`,
  }
}

async function main() {
  const [directory, fdArg, userArg] = process.argv.slice(2)
  const fd = Number(fdArg)
  const [uid, gid] = (userArg ?? "").split(":").map(Number)
  const user = userArg ? { user: { uid: uid!, gid: gid! } } : {}
  let operations: ReturnType<typeof sandboxOperations>
  try {
    operations = sandboxOperations({ directory: directory!, limits: { processes: PROCESS_LIMIT }, ...user })
  } catch (error) {
    const { name, data } = error as { name: string; data: unknown }
    console.log(JSON.stringify({ started: false, name, data }))
    return
  }
  const commands = Object.entries(attacks(fd))
  const { runtime } = createTestRuntime({
    directory,
    tools: codingTools({ directory, operations }),
    permission: [{ permission: "*", pattern: "*", action: "allow" }],
    turns: [
      ...commands.map(([name, command]) => [say.toolCall("bash", { command, description: name })]),
      [say.text("done")],
    ],
  })
  const session = await runtime.session.create({ title: "attack" })
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  const parts = (await runtime.session.messages(session.id))
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")
  const outputs = Object.fromEntries(
    parts.map((part, index) => [
      commands[index]![0],
      part.state.status === "completed"
        ? part.state.output
        : `${part.state.status}: ${JSON.stringify(part.state)}`,
    ]),
  )
  console.log(JSON.stringify({ started: true, uid: process.getuid?.(), outputs }))
  await runtime.close()
}

if (process.argv[1]?.endsWith("attacker-agent.ts")) await main()
