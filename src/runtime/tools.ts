import type { Info as AgentInfo } from "../agent/info.js"
import type { Ruleset } from "../permission/schema.js"
import type { QuestionService } from "../question/service.js"
import { createQuestionTool } from "../question/tool.js"
import type { TaskDeps } from "../task/deps.js"
import { offersTask, taskDescription } from "../task/description.js"
import { createTaskTool } from "../task/tool.js"
import type { Todos } from "../todo/todos.js"
import { createTodoTools } from "../todo/tools.js"
import { type AITool, fromAISet } from "../tool/from-ai.js"
import { createToolRegistry } from "../tool/registry.js"
import type { Info as ToolInfo } from "../tool/tool.js"

export type ToolOptions = {
  tools?: ToolInfo[] | Record<string, AITool> | undefined
  question?: boolean | undefined
  task?: boolean | undefined
  todos?: boolean | undefined
  onQuestion?: unknown
  /** The agents the host named, which decide whether `task` has a sub-agent to start. */
  agents?: Record<string, unknown> | undefined
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
  const taskTool = createTaskTool(deps.task)
  const offersQuestion = options.question ?? options.onQuestion !== undefined
  const offersTaskTool = options.task ?? offersTask(deps.agents, Object.keys(options.agents ?? {}))
  return createToolRegistry(
    [
      ...(offersQuestion ? [createQuestionTool(deps.ask)] : []),
      ...(offersTaskTool ? [taskTool] : []),
      ...(options.todos ? createTodoTools(deps.todos) : []),
      ...(Array.isArray(options.tools) ? options.tools : fromAISet(options.tools ?? {})),
    ],
    new Map([[taskTool as ToolInfo, (ruleset: Ruleset) => taskDescription(deps.agents, ruleset)]]),
  )
}
