/**
 * The model's to-do list for a session: the item schema, the service that stores it, and the
 * `todowrite` and `todoread` tools. See docs/todos.md.
 */
export * as Todo from "./todo.js"
