import { describe, expect, it } from "vitest"
import { missingPackage } from "../../src/cli/missing-package.js"

const notFound = (message: string) => Object.assign(new Error(message), { code: "ERR_MODULE_NOT_FOUND" })

describe("missingPackage", () => {
  it("names the package an import did not find", () => {
    const error = notFound("Cannot find package 'tsx' imported from /app/dist/cli/bin.js")
    expect(missingPackage(error, ["tsx"])).toBe("tsx")
    expect(missingPackage(error, ["hono", "tsx"])).toBe("tsx")
  })

  it("is undefined for another package missing, a broken package, or a missing file", () => {
    expect(missingPackage(notFound("Cannot find package 'tsx-helper' imported from /a.js"), ["tsx"])).toBe(
      undefined,
    )
    expect(missingPackage(new SyntaxError("Unexpected token"), ["tsx"])).toBe(undefined)
    expect(missingPackage(notFound("Cannot find module '/app/agent.js'"), ["tsx"])).toBe(undefined)
    expect(missingPackage(undefined, ["tsx"])).toBe(undefined)
  })
})
