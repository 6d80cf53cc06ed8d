export * from "../schema/permission.js"
export {
  Config,
  disabled,
  evaluate,
  fromConfig,
  match,
  merge,
  permissionOfTool,
} from "../schema/permission-rules.js"
export type { ApprovalScope } from "./approvals.js"
export { CorrectedError, DeniedError, RejectedError } from "./errors.js"
export { pathPattern } from "./path-pattern.js"
export type { PermissionHandler as Handler, PermissionService as Service } from "./service.js"
