import { Decimal } from "decimal.js"
import type { Tokens } from "../message/part.js"
import type { Info, Totals } from "../schema/session.js"
import type { Storage } from "../storage/port.js"

/** A session's own cost and tokens, and those of it with all its descendants (its sub-agents' sessions). */
export type TreeUsage = Totals & { total: Totals }

export async function treeUsage(storage: Storage, root: Info): Promise<TreeUsage> {
  let cost = new Decimal(0)
  let tokens: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
  // Keyed by ID, so that parent links that loop (stored before cycles were refused) end the walk.
  const seen = new Map([[root.id, root]])
  let costUnknown = false
  for (const session of seen.values()) {
    cost = cost.plus(session.cost)
    tokens = addTokens(tokens, session.tokens)
    costUnknown ||= session.costUnknown === true
    for (const child of await storage.listSessions({ parentID: session.id }))
      if (!seen.has(child.id)) seen.set(child.id, child)
  }
  return {
    cost: root.cost,
    tokens: root.tokens,
    ...unknown(root.costUnknown === true),
    total: { cost: cost.toNumber(), tokens, ...unknown(costUnknown) },
  }
}

function unknown(costUnknown: boolean): { costUnknown?: true } {
  return costUnknown ? { costUnknown: true } : {}
}

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  }
}
