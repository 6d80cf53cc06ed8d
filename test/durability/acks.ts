/**
 * The lines a child prints. Each is printed after the write it reports has committed (stdout is
 * written synchronously), so every `ack` line the parent received is a promise of durability.
 */
export const line = {
  session: (sessionID: string) => `ack session ${sessionID}`,
  user: (sessionID: string, messageID: string, index: number) =>
    `ack user ${sessionID} ${messageID} ${index}`,
  answer: (messageID: string, index: number) => `ack answer ${messageID} ${index}`,
  /** A text or reasoning part a client was told of (`message.part.updated`): repair must keep it. */
  part: (messageID: string, partID: string) => `ack part ${messageID} ${partID}`,
  /** Not a promise: a turn failed with a StorageError of this reason, and the child goes on. */
  fault: (reason: string) => `fault ${reason}`,
  /** Not a promise: where the child was, for the histogram of kill points. */
  phase: (name: string) => `phase ${name}`,
  done: () => "done",
}

export type Acked = { messageID: string; index: number }

/** What a killed child had acknowledged, and the last thing it printed. */
export type Acks = {
  sessionID: string | undefined
  users: Acked[]
  answers: Acked[]
  parts: { messageID: string; partID: string }[]
  /** The StorageError reasons the child met and went on from (busy trials). */
  faults: string[]
  /** The last line without its IDs ("ack user", "phase tool-running"), or "no output yet". */
  last: string
}

export function parseAcks(lines: readonly string[]): Acks {
  const acks: Acks = {
    sessionID: undefined,
    users: [],
    answers: [],
    parts: [],
    faults: [],
    last: "no output yet",
  }
  for (const text of lines) {
    const words = text.split(" ")
    if (words[0] === "ack" && words[1] === "session") acks.sessionID = words[2]
    if (words[0] === "ack" && words[1] === "user")
      acks.users.push({ messageID: words[3] ?? "", index: Number(words[4]) })
    if (words[0] === "ack" && words[1] === "answer")
      acks.answers.push({ messageID: words[2] ?? "", index: Number(words[3]) })
    if (words[0] === "fault") acks.faults.push(words[1] ?? "")
    if (words[0] === "ack" && words[1] === "part")
      acks.parts.push({ messageID: words[2] ?? "", partID: words[3] ?? "" })
    // Part acks come in pairs with the phase line before them, which says where the child was.
    else acks.last = words.slice(0, 2).join(" ")
  }
  return acks
}
