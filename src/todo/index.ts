export * as Todo from "./todo.js"
