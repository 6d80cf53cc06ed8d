import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import type { ModelInfo } from "./model-info.js"

const Price = z.number().nonnegative()
const TokenCount = z.number().int().nonnegative()

const Rates = z.object({
  input: Price,
  output: Price,
  cache_read: Price.optional(),
  cache_write: Price.optional(),
})

/**
 * One model of a models.dev catalog (`api.json` -> provider -> `models` -> id). Only the fields
 * agentloop uses are checked; everything else (modalities, release dates, tiers...) is ignored so
 * that catalog additions never break a host.
 */
export const ModelsDevModel = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  attachment: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  temperature: z.boolean().optional(),
  // Newer catalogs spell tool support as an object with finer-grained flags.
  tool_call: z.union([z.boolean(), z.object({ supported: z.boolean() })]).optional(),
  cost: Rates.extend({ context_over_200k: Rates.optional() }).optional(),
  limit: z.object({ context: TokenCount, input: TokenCount.optional(), output: TokenCount }),
})
export type ModelsDevModel = z.input<typeof ModelsDevModel>

/**
 * Maps one models.dev model entry, supplied by the host (agentloop never fetches the catalog), to
 * ModelInfo. A missing `cost` leaves the prices unknown, a missing cache price is 0 and a missing
 * capability is false. Throws InvalidInputError when the entry lacks an id or limits.
 */
export function modelInfoFromModelsDev(entry: unknown, options: { providerID: string }): ModelInfo {
  const { providerID } = parseInput(
    "models.dev options",
    z.object({ providerID: z.string().min(1) }),
    options,
  )
  const model = parseInput("models.dev model entry", ModelsDevModel, entry)
  const toolCall = typeof model.tool_call === "object" ? model.tool_call.supported : model.tool_call
  const over200K = model.cost?.context_over_200k
  return {
    providerID,
    id: model.id,
    name: model.name ?? model.id,
    limit: {
      context: model.limit.context,
      ...(model.limit.input !== undefined && { input: model.limit.input }),
      output: model.limit.output,
    },
    ...(model.cost && {
      cost: { ...prices(model.cost), ...(over200K && { over200K: prices(over200K) }) },
    }),
    capabilities: {
      reasoning: model.reasoning ?? false,
      toolcall: toolCall ?? false,
      attachment: model.attachment ?? false,
      temperature: model.temperature ?? false,
    },
  }
}

function prices(rates: z.infer<typeof Rates>): NonNullable<ModelInfo["cost"]> {
  return {
    input: rates.input,
    output: rates.output,
    cache: { read: rates.cache_read ?? 0, write: rates.cache_write ?? 0 },
  }
}
