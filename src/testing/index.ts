export { type Builders, createBuilders } from "./builders.js"
export {
  type ConformanceOptions,
  type RowTarget,
  storageConformance,
  type TestFramework,
} from "./storage-conformance.js"
