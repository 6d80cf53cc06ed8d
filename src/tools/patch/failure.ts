import { PatchFailedError } from "../errors.js"

type Reason = PatchFailedError["data"]["reason"]

/** A PatchFailedError for a patch that was not applied: its message tells the model nothing changed. */
export function patchFailed(
  reason: Exclude<Reason, "partial">,
  detail: string,
  path?: string,
): PatchFailedError {
  return new PatchFailedError({
    message: `Patch not applied, nothing was changed: ${detail}`,
    reason,
    ...(path === undefined ? {} : { path }),
  })
}
