const FORK_SUFFIX = / \(fork #(\d+)\)$/

export function defaultTitle(isChild: boolean, now: number): string {
  return `${isChild ? "Child session" : "New session"} - ${new Date(now).toISOString()}`
}

export function isDefaultTitle(title: string): boolean {
  return /^(New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(title)
}

/**
 * "X" forks to "X (fork #1)", and every later fork of X or of one of its forks takes the next
 * free number, so forks of one conversation never share a title.
 */
export function forkTitle(title: string, existingTitles: readonly string[]): string {
  const base = title.replace(FORK_SUFFIX, "")
  let highest = 0
  for (const existing of existingTitles) {
    if (!existing.startsWith(base)) continue
    const match = FORK_SUFFIX.exec(existing)
    if (match && existing.length - match[0].length === base.length)
      highest = Math.max(highest, Number(match[1]))
  }
  return `${base} (fork #${highest + 1})`
}
