import { compactionPart, filterCompacted, latestSummaryID } from "../message/filter-compacted.js"
import type { WithParts } from "../message/info.js"
import type { Storage } from "../storage/port.js"

/** Newest messages read first; most compacted sessions keep fewer since their latest compaction. */
export const HISTORY_PAGE = 100

/**
 * The messages a run needs, oldest first: everything from the latest completed compaction's
 * retained tail on, when the newest page holds all of that, else the whole session. A long
 * session that was compacted then starts a run in time that follows what the model sees, not
 * the session's length; one that was not pays one page more than a full load.
 */
export async function loadHistory(storage: Storage, sessionID: string): Promise<WithParts[]> {
  const page = await storage.listMessages(sessionID, { limit: HISTORY_PAGE })
  if (page.length < HISTORY_PAGE) return page
  const visible = filterCompacted(page)
  if (latestSummaryID(visible) !== undefined) {
    const tailStartID = compactionPart(visible[0]!)?.tailStartID
    if (tailStartID === undefined || tailStartID >= page[0]!.info.id) return page
  }
  return storage.listMessages(sessionID)
}
