import { abortable } from "../../util/abortable.js"
import { workTreeRoot } from "../instructions/discover.js"
import { localOperations } from "../local-operations.js"
import type { Operations } from "../operations.js"
import { skillFiles } from "./discover.js"
import { describeIssue, InvalidSkillsError, type SkillIssue } from "./errors.js"
import type { SkillInfo } from "./info.js"
import { type Checked, checkSkillObject, parseSkillFile } from "./parse.js"

/** Where a skill catalogue looks for skills and what it does with invalid ones. */
export type SkillOptions = {
  /** Where the search starts: the runtime's directory. */
  directory: string
  /** Where the walk up from `directory` stops; default the nearest folder holding `.git`, else `directory` alone. */
  root?: string
  /** Further folders of skills (each a folder of skill folders, or one skill's folder), searched after the project's. */
  dirs?: readonly string[]
  /** Skills the host gives as they are, after all found on disk. */
  skills?: readonly SkillInfo[]
  /**
   * What an invalid skill does: "warn" (default) skips it with one warning each; "throw" makes
   * `load` reject with one `InvalidSkillsError` listing every fault.
   */
  invalid?: "throw" | "warn"
  /** Gets each warning under "warn", once per fault while it lasts; default `console.warn` of its message. */
  onWarning?: (warning: SkillWarning) => void
  /** How files are read; default `localOperations`. A sandbox's operations keep the search inside it. */
  operations?: Operations
}

/** A skill skipped under `invalid: "warn"`: its file, what is wrong, and a message saying both. */
export type SkillWarning = { file: string; issues: SkillIssue[]; message: string }

/**
 * The skills of a project, read anew at each `load` (so a skill added or edited is seen at the
 * next load) and kept until the next, for what must answer at once (a tool's description).
 */
export type SkillCatalog = {
  /**
   * Reads every source and resolves with the valid skills, nearest first, one per name. Rejects
   * with `InvalidSkillsError` under `invalid: "throw"` when any skill is invalid; `skills()` then
   * holds the valid ones. Loads asked for while one runs share it; `signal` ends the caller's
   * wait, not the shared read.
   */
  load(options?: { signal?: AbortSignal }): Promise<readonly SkillInfo[]>
  /** The skills of the last load; empty before the first. */
  skills(): readonly SkillInfo[]
  /** Whether a load has finished (the tool loads on first use when none has). */
  loaded(): boolean
}

/** A skill catalogue over the project's skill folders, the host's folders and the host's skills. */
export function createSkillCatalog(options: SkillOptions): SkillCatalog {
  const operations = options.operations ?? localOperations
  const onWarning = options.onWarning ?? ((warning: SkillWarning) => console.warn(warning.message))
  let current: readonly SkillInfo[] = []
  let done = false
  let running: Promise<readonly SkillInfo[]> | undefined
  // Faults warned of at the last load: a fault that stays is not warned of again at each turn.
  let warned = new Set<string>()

  async function read(): Promise<readonly SkillInfo[]> {
    const root = options.root ?? (await workTreeRoot(operations, options.directory))
    const files = await skillFiles(operations, {
      directory: options.directory,
      root,
      dirs: options.dirs ?? [],
    })
    const checked: Sourced[] = []
    for (const file of files) checked.push({ source: file, ...(await readSkill(operations, file)) })
    for (const [index, skill] of (options.skills ?? []).entries()) {
      const source = `skills[${index}]`
      checked.push({ source, ...checkSkillObject(skill, source) })
    }
    const { skills, faults } = keepFirstOfEachName(checked)
    current = skills
    done = true
    if (faults.length === 0) {
      warned = new Set()
      return skills
    }
    if (options.invalid === "throw") throw InvalidSkillsError.of(faults.flat())
    warned = warnOnce(faults, warned, onWarning)
    return skills
  }

  return {
    load(input) {
      running ??= read().finally(() => {
        running = undefined
      })
      // The read is shared by every caller meanwhile (sessions' turns), so one caller's abort
      // stops its own wait, not the read the others wait for.
      return input?.signal ? abortable(running, input.signal) : running
    },
    skills: () => current,
    loaded: () => done,
  }
}

async function readSkill(operations: Operations, file: string): Promise<Checked> {
  let bytes: Uint8Array
  try {
    bytes = await operations.readFile(file)
  } catch (error) {
    return { issues: [{ file, field: "file", message: `cannot be read: ${(error as Error).message}` }] }
  }
  // Outside the try: a missing `yaml` package is the host's to fix, not a fault of the skill.
  return parseSkillFile(new TextDecoder().decode(bytes), file)
}

/** A skill checked, and where it came from: its file, or `skills[<index>]` for the host's objects. */
type Sourced = Checked & { source: string }

/** The valid skills, the first of each name kept, and each bad skill's issues (a later duplicate is one). */
function keepFirstOfEachName(checked: readonly Sourced[]) {
  const byName = new Map<string, { source: string; skill: SkillInfo }>()
  const faults: SkillIssue[][] = []
  for (const entry of checked) {
    if (entry.issues) {
      faults.push(entry.issues)
      continue
    }
    const kept = byName.get(entry.skill.name)
    if (kept) {
      const message = `"${entry.skill.name}" is also the name of ${kept.source}, which is kept`
      faults.push([{ file: entry.source, field: "name", message }])
      continue
    }
    byName.set(entry.skill.name, { source: entry.source, skill: entry.skill })
  }
  return { skills: [...byName.values()].map((entry) => entry.skill), faults }
}

function warnOnce(
  faults: SkillIssue[][],
  before: ReadonlySet<string>,
  onWarning: (warning: SkillWarning) => void,
) {
  const now = new Set<string>()
  for (const issues of faults) {
    const file = issues[0]!.file
    const message = `Skipped the invalid skill ${file}:\n${issues.map(describeIssue).join("\n")}`
    now.add(message)
    if (!before.has(message)) onWarning({ file, issues, message })
  }
  return now
}
