import { define, type ToolInfo } from "../tool/tool.js"
import type { TaskDeps } from "./deps.js"
import { taskDescription } from "./description.js"
import { runTask, TaskParameters } from "./run-task.js"

/**
 * The built-in `task` tool: the model hands a task to a sub-agent in a child session. Its
 * description here lists every sub-agent; each step gets `taskDescription` for its own rules.
 */
export function createTaskTool(deps: TaskDeps): ToolInfo<typeof TaskParameters> {
  return define("task", {
    description: taskDescription(deps.agents),
    parameters: TaskParameters,
    execute: (args, context) => runTask(deps, args, context, { ask: true }),
  })
}
