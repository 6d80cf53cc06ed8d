import { z } from "zod"

/** One item of the model's to-do list: content, status and priority, as `todowrite` stores it. */
export const Todo = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
})
export type Todo = z.infer<typeof Todo>
