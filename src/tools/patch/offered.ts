/**
 * Whether a model is given `apply_patch` instead of `edit` and `write`: OpenCode's rule, on the
 * model ID alone (case-sensitive). OpenAI's GPT-5 family (`gpt-5`, `gpt-5.1-codex` ...) is
 * trained on the patch format; `gpt-4*` and the open-weight `gpt-oss-*` are not, nor are `o3`,
 * `o4-mini` or other providers' models.
 */
export function usesApplyPatch(modelID: string): boolean {
  return modelID.includes("gpt-") && !modelID.includes("oss") && !modelID.includes("gpt-4")
}
