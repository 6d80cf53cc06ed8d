import type { z } from "zod"

/** One event type: its name and the zod schema of its `properties`. */
export type Definition<Type extends string = string, Properties extends z.ZodType = z.ZodType> = {
  type: Type
  properties: Properties
}

export function define<const Type extends string, Properties extends z.ZodType>(
  type: Type,
  properties: Properties,
): Definition<Type, Properties> {
  return { type, properties }
}
