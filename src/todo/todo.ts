export { Todo as Info } from "../schema/session.js"
export { openCount, TodoList as List } from "./list.js"
export { createTodos, type TodoDeps as Deps, type Todos as Service } from "./todos.js"
export { createTodoTools, listResult, TodoReadParameters, TodoWriteParameters } from "./tools.js"
