export { Answer, AskInput, Event, Info, Option, Reply, ReplyInput, Request } from "../schema/question.js"
export { RejectedError } from "./errors.js"
export type { QuestionHandler as Handler, QuestionService as Service } from "./service.js"
export { createQuestionTool, formatAnswers, QuestionToolParameters } from "./tool.js"
