import type { AgentInfo } from "../agent/info.js"
import type { QuestionService } from "../question/service.js"
import { createQuestionTool } from "../question/tool.js"
import type { Snapshot } from "../snapshot/port.js"
import type { Storage } from "../storage/port.js"
import type { TaskDeps } from "../task/deps.js"
import { offersTask, taskDescription } from "../task/description.js"
import { createTaskTool } from "../task/tool.js"
import type { Todos } from "../todo/todos.js"
import { createTodoTools } from "../todo/tools.js"
import type { DataPath } from "../tool/data-path.js"
import { type AITool, fromAISet } from "../tool/from-ai.js"
import { createToolRegistry } from "../tool/registry.js"
import type { ToolInfo } from "../tool/tool.js"

export type ToolOptions = {
  tools?: ToolInfo[] | Record<string, AITool> | undefined
  question?: boolean | undefined
  task?: boolean | undefined
  todos?: boolean | undefined
  onQuestion?: unknown
  /** The agents the host named, which decide whether `task` has a sub-agent to start. */
  agents?: Record<string, unknown> | undefined
  /** The ports, whose data paths every call of the host's tools is told (Context.protectedPaths). */
  snapshot?: Pick<Snapshot, "dataPaths"> | undefined
  storage?: Pick<Storage, "dataPaths"> | undefined
}

/**
 * The runtime's tools: the host's, and each built-in only where it serves, since every tool
 * offered costs every request its schema: `question` when someone answers (`onQuestion`, or
 * `question: true`), `task` when a host's agent can be started as a sub-agent (or `task: true`),
 * the todo tools on request.
 */
export function createRuntimeTools(
  options: ToolOptions,
  deps: { agents: Record<string, AgentInfo>; ask: QuestionService["ask"]; todos: Todos; task: TaskDeps },
) {
  const taskTool: ToolInfo = {
    ...createTaskTool(deps.task),
    describe: ({ ruleset }) => taskDescription(deps.agents, ruleset),
  }
  const offersQuestion = options.question ?? options.onQuestion !== undefined
  const offersTaskTool = options.task ?? offersTask(deps.agents, Object.keys(options.agents ?? {}))
  const hostTools = Array.isArray(options.tools) ? options.tools : fromAISet(options.tools ?? {})
  return createToolRegistry([
    ...(offersQuestion ? [createQuestionTool(deps.ask)] : []),
    ...(offersTaskTool ? [taskTool] : []),
    ...(options.todos ? createTodoTools(deps.todos) : []),
    ...hostTools.map((tool) => toldOfDataPaths(tool, () => dataPathsOf(options))),
  ])
}

/** Where the snapshot and the storage keep their data, asked at each call: a port may add some. */
function dataPathsOf(options: ToolOptions): DataPath[] {
  return [...(options.snapshot?.dataPaths ?? []), ...(options.storage?.dataPaths ?? [])]
}

/**
 * The tool, its every call told where the ports keep their data. Here rather than where each
 * context is made (a step, a resumed call, a shell command), so that no way of running a tool
 * misses it. The built-ins touch no files and are left as they are.
 */
function toldOfDataPaths(tool: ToolInfo, dataPaths: () => readonly DataPath[]): ToolInfo {
  return {
    ...tool,
    execute: (args, context) => tool.execute(args, { ...context, protectedPaths: dataPaths() }),
  }
}
