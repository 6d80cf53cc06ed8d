export { isPrivateAddress } from "./address.js"
export { WEBFETCH_PACKAGES } from "./convert.js"
export { BlockedAddressError, WebFetchError } from "./errors.js"
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  type WebFetchOptions,
} from "./options.js"
export { webfetchTool } from "./webfetch-tool.js"
