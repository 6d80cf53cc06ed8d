// The names docs snippets take as given: what a reader has in scope at that point of a guide
// (a runtime, a session's ID, their own UI). Everything from the package itself is imported by
// the snippet, so a missing import or a wrong type fails the check.
import type { MessageV2, Permission, Provider, Question, Runtime, Snapshot, Storage } from "agentloop-sdk"

declare global {
  const runtime: Runtime
  const provider: Provider.Provider
  const sessionID: string
  const messageID: string
  const partID: string
  const callID: string
  const requestID: string
  const previousID: string
  const id: string
  const row: unknown
  const ruleset: Permission.Ruleset
  const signal: AbortSignal
  const controller: AbortController
  const snapshot: Snapshot
  const assistant: MessageV2.Assistant
  const assistantMessage: MessageV2.Assistant
  const modelInfo: Provider.ModelInfo
  const model: { providerID: string; modelID: string }
  const step: { usage: import("ai").LanguageModelUsage; providerMetadata?: import("ai").ProviderMetadata }
  const request: Request
  const response: { write(chunk: string): void }
  const url: string
  const log: { warn(entry: object): void }
  function audit(...values: unknown[]): void
  function showPrompt(
    request: Permission.Request,
    options: { signal: AbortSignal },
  ): Promise<{ ok: boolean; feedback?: string }>
  const ui: {
    show(request: Permission.Request | Question.Request): void
    ask(questions: Question.Info[], options: { signal: AbortSignal }): Promise<Question.Answer[]>
  }
  const MyStorage: new () => Storage & { rawUpdate(kind: string, id: string, json: string): Promise<void> }
}
