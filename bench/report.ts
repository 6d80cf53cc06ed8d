import type { ModelInfo } from "../src/provider/model-info.js"

/** The model info the benchmarks run with: a 200K window, no attachments. */
export const BENCH_MODEL: ModelInfo = {
  providerID: "bench",
  id: "bench-model",
  name: "Bench",
  limit: { context: 200_000, output: 32_000 },
  cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
  capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
}

/** The middle value (mean of the two middle ones for an even count): robust to a noisy round. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Prints a right-aligned Markdown table, ready to paste into bench/README.md. */
export function printTable(header: string[], rows: string[][]) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  )
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padStart(widths[column]!)).join(" | ")} |`
  console.log(line(header))
  console.log(`|${widths.map((width) => `${"-".repeat(width + 1)}:`).join("|")}|`)
  for (const row of rows) console.log(line(row))
}
