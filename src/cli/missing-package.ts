/**
 * Which of `names` an import failed for not finding it installed, if that is why it failed. A
 * package that is there but lacks a dependency of its own, or is broken, is not one of them.
 */
export function missingPackage(error: unknown, names: readonly string[]): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== "ERR_MODULE_NOT_FOUND") return undefined
  return names.find((name) => String(message).includes(`'${name}'`))
}
