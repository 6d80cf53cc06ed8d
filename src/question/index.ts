export * as Question from "./question.js"
