import * as path from "node:path"
import { builtins } from "../../agent/builtins.js"
import { codingAgents } from "../../agent/coding.js"
import { foldersDown, workTreeRoot } from "../instructions/discover.js"
import { localOperations } from "../local-operations.js"
import { FrontMatterError, parseFrontMatter } from "../markdown/front-matter.js"
import type { Operations } from "../operations.js"
import { toAgent } from "./agent.js"
import { toCommand } from "./command.js"
import { entryName, markdownFiles, SOURCES, type Source } from "./discover.js"
import { ProjectConfigError } from "./errors.js"
import { checkName } from "./fields.js"
import type { ProjectConfig, ProjectConfigOptions } from "./options.js"

type Found = { agents: Map<string, Entry>; commands: Map<string, Entry>; files: string[] }
type Entry = { file: string; value: unknown }
type Reader = {
  operations: Operations
  warn: (message: string) => void
  signal?: AbortSignal
  builtIns: Set<string>
}

/**
 * The project's markdown agents and commands, as OpenCode and Claude Code keep them:
 * `.opencode/agent(s)/**\/*.md`, `.claude/agents/`, `.opencode/command(s)/`, `.claude/commands/`
 * in every folder from the work tree's root down to `directory`, the nearest folder winning a
 * name. A file's name under its folder, without `.md`, names it (`git/commit`); an agent's
 * front matter `name` wins. Agents take OpenCode's front matter (description, mode, model,
 * temperature, top_p, steps, permission, tools, hidden, disable) or Claude Code's (name,
 * description, tools, model), with the body as the prompt; commands take description, agent,
 * model and subtask, with the body as the template. Throws ProjectConfigError naming the file
 * (and the field) for front matter that is not YAML or a known key with a bad value. Pass the
 * result to `createRuntime` under the host's own: `agents: { ...loaded.agents, ...mine }`.
 */
export async function loadProjectConfig(
  directory: string,
  options: ProjectConfigOptions = {},
): Promise<ProjectConfig> {
  const operations = options.operations ?? localOperations
  const start = path.resolve(directory)
  const root = options.root === undefined ? await workTreeRoot(operations, start) : path.resolve(options.root)
  const reader: Reader = {
    operations,
    warn: options.onWarning ?? ((message) => console.warn(message)),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    builtIns: new Set([...Object.keys(builtins()), ...Object.keys(codingAgents())]),
  }
  const found: Found = { agents: new Map(), commands: new Map(), files: [] }
  for (const folder of foldersDown(root, start)) {
    const here: Found = { agents: new Map(), commands: new Map(), files: [] }
    for (const source of SOURCES) {
      if (source.claude && options.claude === false) continue
      await readSource(reader, path.join(folder, source.folder), source, here)
    }
    for (const [name, entry] of here.agents) found.agents.set(name, entry)
    for (const [name, entry] of here.commands) found.commands.set(name, entry)
    found.files.push(...here.files)
  }
  return {
    agents: usable(found.agents, reader),
    commands: usable(found.commands, reader),
    files: found.files,
  }
}

/** Reads one source folder's files into `here`, warning when two files of the folder define one name. */
async function readSource(reader: Reader, folder: string, source: Source, here: Found): Promise<void> {
  const entries = source.kind === "agent" ? here.agents : here.commands
  for (const file of await markdownFiles(reader.operations, folder, reader.signal)) {
    here.files.push(file)
    const { data, body } = frontMatterOf(
      file,
      await reader.operations.readFile(file, { signal: reader.signal }),
    )
    const given =
      source.kind === "agent" && typeof data.name === "string" ? data.name : entryName(folder, file)
    const name = checkName(given, file)
    const mapped = { file, claude: source.claude, warn: reader.warn }
    const value =
      source.kind === "agent"
        ? toAgent(data, body, { ...mapped, builtIn: reader.builtIns.has(name) })
        : toCommand(data, body, mapped)
    const before = entries.get(name)
    if (before !== undefined)
      reader.warn(`${before.file} and ${file} both define the ${source.kind} "${name}"; ${file} is used`)
    entries.set(name, { file, value })
  }
}

function frontMatterOf(file: string, bytes: Uint8Array) {
  try {
    return parseFrontMatter(new TextDecoder().decode(bytes), file)
  } catch (error) {
    if (FrontMatterError.isInstance(error))
      throw ProjectConfigError.of(file, error.data.message, undefined, error)
    throw error
  }
}

/** The entries by name, without disabled agents; `disable` cannot remove a built-in agent, which is said. */
function usable<T>(entries: Map<string, Entry>, reader: Reader): Record<string, T> {
  const result: Record<string, T> = {}
  for (const [name, { file, value }] of entries) {
    if (value !== "disabled") result[name] = value as T
    else if (reader.builtIns.has(name))
      reader.warn(
        `${file}: disable cannot remove the built-in agent "${name}"; leave it out of the runtime's agents instead`,
      )
  }
  return result
}
