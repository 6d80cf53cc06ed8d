import { readFileSync } from "node:fs"
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"

/**
 * Checks answers against the OpenAPI document of OpenCode's own server (test/fixtures/opencode),
 * so that a test fails on any field OpenCode's clients would not find where they expect it.
 */

type Schema = { [key: string]: unknown }
type Operation = {
  operationId?: string
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>
}
export type OpenAPIDocument = {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema> }
}

const FIXTURE = new URL("../../fixtures/opencode/openapi-1.18.33.json", import.meta.url)
const SCHEMA_ID = "https://opencode.test/openapi.json"
const COMPONENT_REF = "#/components/schemas/"
/** An answer with no body: what a 204 operation has, and `undefined` stands for. */
const NO_BODY = Symbol("no body")
type Success = { status: number; schema: Schema | typeof NO_BODY }

export function loadOpenCodeDocument(): OpenAPIDocument {
  return JSON.parse(readFileSync(FIXTURE, "utf8")) as OpenAPIDocument
}

/**
 * `expectShape(operationId, body)` validates an answer against the operation's 200 (or first 2xx)
 * schema; `expectEventShape` and `expectGlobalEventShape` validate one event of `/event` and
 * `/global/event`. Each throws an Error listing what does not match.
 */
export function createShapeChecker(document: OpenAPIDocument = loadOpenCodeDocument()) {
  const operations = successes(document)
  const discriminate = unionRewriter(document.components.schemas)
  const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true, validateFormats: false })
  ajv.addSchema({
    $id: SCHEMA_ID,
    components: { schemas: discriminate(tolerateOpenCode(document.components.schemas)) },
    $defs: discriminate(
      Object.fromEntries(
        [...operations].flatMap(([id, { schema }]) => (schema === NO_BODY ? [] : [[id, schema]])),
      ),
    ),
  })
  const compiled = new Map<string, ValidateFunction>()
  function validator(pointer: string): ValidateFunction {
    let validate = compiled.get(pointer)
    if (!validate) {
      validate = ajv.compile({ $ref: `${SCHEMA_ID}#${pointer}` })
      compiled.set(pointer, validate)
    }
    return validate
  }
  function check(label: string, pointer: string, value: unknown): void {
    const validate = validator(pointer)
    if (!validate(value)) throw new Error(describeErrors(label, validate.errors ?? [], value))
  }

  const routes = routesOf(document)
  function success(operationId: string): Success {
    const found = operations.get(operationId)
    if (!found) throw new Error(`OpenCode's document has no operation "${operationId}"`)
    return found
  }

  return {
    /** The status OpenCode answers the operation with when it succeeds: 200, or its first 2xx. */
    successStatus(operationId: string): number {
      return success(operationId).status
    },
    /** The operation OpenCode serves `METHOD /path` with (a concrete path, no query), if any. */
    operationFor(method: string, path: string): string | undefined {
      return routes.find((route) => route.method === method.toLowerCase() && route.pattern.test(path))
        ?.operationId
    },
    expectShape(operationId: string, body: unknown): void {
      if (success(operationId).schema === NO_BODY) {
        if (body !== undefined && body !== "")
          throw new Error(`${operationId} answers with no body, but got ${preview(body)}`)
        return
      }
      check(operationId, `/$defs/${escapePointer(operationId)}`, body)
    },
    expectEventShape(event: unknown): void {
      check("Event", "/components/schemas/Event", event)
    },
    expectGlobalEventShape(event: unknown): void {
      check("GlobalEvent", "/components/schemas/GlobalEvent", withConnectedDirectory(event))
    },
  }
}

export type ShapeChecker = ReturnType<typeof createShapeChecker>

/**
 * Where OpenCode 1.18.33's own server answers outside its own schema (found by hand against
 * `opencode serve`, and in what `opencode attach` was answered at start), the schema is widened
 * to what OpenCode sends, so that answering as OpenCode does passes:
 * - `VcsInfo.default_branch` (GET /vcs) is `null` in a git repository with no commit yet.
 */
function tolerateOpenCode(components: Record<string, Schema>): Record<string, Schema> {
  const vcs = components.VcsInfo as { properties: Record<string, Schema> }
  const defaultBranch = { anyOf: [vcs.properties.default_branch, { type: "null" }] }
  return {
    ...components,
    VcsInfo: { ...vcs, properties: { ...vcs.properties, default_branch: defaultBranch } },
  }
}

/**
 * OpenCode 1.18.33's own `/global/event` opens with `{ payload: server.connected }` and no
 * `directory`, though its GlobalEvent schema requires one (checked by hand against `opencode
 * serve`). That one event is tolerated without it: checked as if it named a directory.
 */
function withConnectedDirectory(event: unknown): unknown {
  if (typeof event !== "object" || event === null || "directory" in event) return event
  const payload = (event as { payload?: { type?: unknown } }).payload
  return payload?.type === "server.connected" ? { ...event, directory: "" } : event
}

/** Every operation's method and path pattern, the fixed paths first (`/session/status` before `/session/{sessionID}`). */
function routesOf(document: OpenAPIDocument) {
  const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) =>
      operation.operationId
        ? [
            {
              method,
              operationId: operation.operationId,
              parameters: path.split("{").length - 1,
              pattern: new RegExp(
                `^${path
                  .split(/\{[^}]+\}/)
                  .map(escapeRegExp)
                  .join("[^/]+")}$`,
              ),
            },
          ]
        : [],
    ),
  )
  return routes.sort((a, b) => a.parameters - b.parameters)
}

/** Each operation's 200 answer, or its first 2xx one: the status, and its schema or NO_BODY. */
function successes(document: OpenAPIDocument): Map<string, Success> {
  const schemas = new Map<string, Success>()
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods)) {
      if (!operation.operationId || !operation.responses) continue
      const statuses = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status))
      const status = statuses.includes("200") ? "200" : statuses.sort()[0]
      if (status === undefined) continue
      const content = operation.responses[status]?.content
      const schema = content?.["application/json"]?.schema ?? Object.values(content ?? {})[0]?.schema
      schemas.set(operation.operationId, { status: Number(status), schema: schema ?? NO_BODY })
    }
  }
  return schemas
}

/**
 * OpenCode writes its tagged unions (Event, Part, Message, errors...) as a bare `anyOf`, for which
 * ajv reports every branch's errors: hundreds of lines for one wrong field. A union whose branches
 * are all objects told apart by one required string tag becomes a `oneOf` with a `discriminator`,
 * so ajv checks the branch the tag names and reports only its errors. What validates is unchanged.
 */
function unionRewriter(components: Record<string, Schema>): <T>(schemas: T) => T {
  const resolve = (schema: unknown): Schema | undefined => {
    let current = schema as Schema | undefined
    for (let hops = 0; typeof current?.$ref === "string" && hops < 10; hops++)
      current = components[(current.$ref as string).slice(COMPONENT_REF.length)]
    return current
  }
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite)
    if (typeof node !== "object" || node === null) return node
    const copy: Schema = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, rewrite(value)]))
    const branches = copy.anyOf
    if (!Array.isArray(branches) || branches.length < 2) return copy
    const tag = unionTag(branches.map(resolve))
    if (!tag) return copy
    const { anyOf, ...rest } = copy
    return { ...rest, type: "object", oneOf: anyOf, discriminator: { propertyName: tag } }
  }
  return <T>(schemas: T) => rewrite(schemas) as T
}

/** The property every branch requires with a string `enum`/`const` of values no other branch uses. */
function unionTag(branches: (Schema | undefined)[]): string | undefined {
  const first = branches[0]?.properties
  if (typeof first !== "object" || first === null) return undefined
  return Object.keys(first).find((name) => {
    const seen = new Set<unknown>()
    return branches.every((branch) => {
      if (branch?.type !== "object" || !(branch.required as string[] | undefined)?.includes(name))
        return false
      const property = (branch.properties as Record<string, Schema> | undefined)?.[name]
      const values = property?.const !== undefined ? [property.const] : property?.enum
      if (!Array.isArray(values) || values.length === 0) return false
      return values.every((value) => typeof value === "string" && !seen.has(value) && seen.add(value))
    })
  })
}

const MAX_LISTED = 10

function describeErrors(label: string, errors: ErrorObject[], value: unknown): string {
  const lines = errors.slice(0, MAX_LISTED).map((error) => {
    const where = error.instancePath || "(root)"
    return `  ${where} ${error.message ?? error.keyword}${detail(error)}; value: ${preview(valueAt(value, error.instancePath))}`
  })
  const more = errors.length > MAX_LISTED ? [`  ... and ${errors.length - MAX_LISTED} more`] : []
  return [`${label}: the answer does not match OpenCode's schema:`, ...lines, ...more].join("\n")
}

function detail(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  if (error.keyword === "additionalProperties") return ` "${String(params.additionalProperty)}"`
  if (error.keyword === "enum") return ` ${JSON.stringify(params.allowedValues)}`
  if (error.keyword === "discriminator") return ` (${String(params.tagValue ?? params.tag)})`
  return ""
}

function valueAt(value: unknown, instancePath: string): unknown {
  if (instancePath === "") return value
  return instancePath
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((current, key) => (current as Record<string, unknown> | undefined)?.[key], value)
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 160 ? `${text.slice(0, 160)}...` : text
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1")
}
