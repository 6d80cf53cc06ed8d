// The module `agentloop-sdk serve` serves in the parts scenario: runtime options with a scripted
// model, in TypeScript, loaded by Bun or Deno themselves (no tsx is installed in the check's project).
import type { RuntimeOptions } from "agentloop-sdk"
import { say, scriptedModel, testModelInfo } from "agentloop-sdk/testing"

const options: RuntimeOptions = {
  model: { language: scriptedModel([[say.text("Served.")]]), info: testModelInfo },
  titles: false,
}
export default options
