/**
 * The support agent: what it can do (look orders up, refund them) and what needs a human (every
 * refund). app.ts serves it; agent.test.ts tests it with a scripted model.
 */
import type { RuntimeOptions } from "agentloop-sdk"
import { tool } from "ai"
import { z } from "zod"

const orders: Record<string, { item: string; total: number; status: string }> = {
  A1: { item: "Desk lamp", total: 42, status: "delivered" },
}

export const supportAgent = {
  instructions: ["You are a shop's support agent. Look an order up before you refund it."],
  tools: {
    lookup_order: tool({
      description: "Look an order up by its ID",
      inputSchema: z.object({ orderID: z.string() }),
      execute: async ({ orderID }) => orders[orderID] ?? { error: `There is no order ${orderID}` },
    }),
    refund: tool({
      description: "Refund an order in full",
      inputSchema: z.object({ orderID: z.string() }),
      execute: async ({ orderID }) => ({ orderID, refunded: orders[orderID]?.total ?? 0 }), // your billing API here
    }),
  },
  // Every refund waits for a person's approval; the app answers it on its own route.
  permission: [{ permission: "refund", pattern: "*", action: "ask" }],
} satisfies RuntimeOptions
