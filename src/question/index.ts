/**
 * Asking the user a question from a tool and waiting for a validated answer: the request and
 * answer schemas, the service, the `question` tool and the errors when an answer is rejected or
 * does not fit. See docs/question.md.
 */
export * as Question from "./question.js"
