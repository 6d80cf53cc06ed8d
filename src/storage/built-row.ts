/**
 * A row the runtime assembled itself, from values that were already checked (the processor's
 * step-start, text and step-finish parts, its assistant message, the session totals of
 * `recordUsage`), carries this mark while it is handed to storage: this package's adapters then
 * skip the row's schema parse, the largest part of a step's write cost, and still encode it
 * (see encodeWrites). Rows read back stay validated unless their stamp says this package wrote
 * them (see rowStamp). The mark is not exported: rows a host hands to storage are always parsed.
 */
const builtRow = Symbol("agentloop.builtRow")

type Marked = { [builtRow]?: true }

/** Marks `row` as the runtime's own (see writeMarked, which takes the mark off again). */
export function markBuilt<T extends object>(row: T): T {
  ;(row as Marked)[builtRow] = true
  return row
}

export function isBuilt(row: unknown): boolean {
  return typeof row === "object" && row !== null && (row as Marked)[builtRow] === true
}

/**
 * Runs `write` and takes the marks off `rows` as soon as it has been called: an adapter reads
 * them while it validates the batch, which it does before its first await, and nothing after
 * may take a row a host holds (the one an event carries) for the runtime's. A storage that
 * reads the batch later finds no mark, and parses every row.
 */
export function writeMarked<T>(rows: readonly unknown[], write: () => Promise<T>): Promise<T> {
  try {
    return write()
  } finally {
    // A caller's malformed batch may hold anything; storage names what is wrong with it.
    for (const row of rows) if (isBuilt(row)) delete (row as Marked)[builtRow]
  }
}
