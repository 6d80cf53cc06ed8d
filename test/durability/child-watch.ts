/**
 * What the parent sees of a running child: the lines it printed so far and whether it exited.
 * A fault that must wait for the child (to meet the full disk, to have connected) waits here.
 */
export class ChildWatch {
  readonly lines: string[] = []
  #exited = false
  readonly #wakers = new Set<() => void>()

  get exited(): boolean {
    return this.#exited
  }

  line(text: string): void {
    this.lines.push(text)
    this.#wake()
  }

  exit(): void {
    this.#exited = true
    this.#wake()
  }

  /**
   * Resolves true once `condition` holds, false when the child exited first or `ms` passed:
   * checked at once and after every line.
   */
  until(condition: (lines: readonly string[]) => boolean, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        const held = condition(this.lines)
        if (!held && !this.#exited) return
        settle(held)
      }
      const settle = (held: boolean) => {
        clearTimeout(timer)
        this.#wakers.delete(check)
        resolve(held)
      }
      const timer = setTimeout(() => settle(false), ms)
      this.#wakers.add(check)
      check()
    })
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake()
  }
}

/** Whether the child reported a turn that failed under a StorageError (acks.ts `fault` lines). */
export function metFault(lines: readonly string[]): boolean {
  return lines.some((text) => text.startsWith("fault "))
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
