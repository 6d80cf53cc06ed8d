export { UnknownModelError } from "./errors.js"
export { ModelInfo } from "./model-info.js"
export { ModelsDevModel, modelInfoFromModelsDev } from "./models-dev.js"
export { createProvider, type Model, type Provider, ProviderOptions } from "./provider.js"
