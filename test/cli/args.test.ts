import { describe, expect, it } from "vitest"
import { parseArguments } from "../../src/cli/args.js"
import { UsageError } from "../../src/cli/errors.js"

const usageError = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (UsageError.isInstance(error)) return error.message
    throw error
  }
  throw new Error("expected a UsageError")
}

describe("parseArguments", () => {
  it("serves on 127.0.0.1:4096 without a password by default", () => {
    expect(parseArguments(["serve"], {})).toEqual({
      command: "serve",
      module: undefined,
      port: 4096,
      hostname: "127.0.0.1",
      credentials: undefined,
    })
  })

  it("takes the module, the port and the host name", () => {
    expect(
      parseArguments(["serve", "./agent.ts", "--port", "0", "--hostname", "localhost"], {}),
    ).toMatchObject({
      module: "./agent.ts",
      port: 0,
      hostname: "localhost",
    })
  })

  it("takes the password from --password over OPENCODE_SERVER_PASSWORD, the user from OPENCODE_SERVER_USERNAME", () => {
    const env = { OPENCODE_SERVER_PASSWORD: "env", OPENCODE_SERVER_USERNAME: "me" }
    expect(parseArguments(["serve", "--password", "flag"], env)).toMatchObject({
      credentials: { username: "me", password: "flag" },
    })
    expect(parseArguments(["serve"], { OPENCODE_SERVER_PASSWORD: "env" })).toMatchObject({
      credentials: { username: "opencode", password: "env" },
    })
  })

  it("takes an empty password for none, as opencode does", () => {
    expect(parseArguments(["serve"], { OPENCODE_SERVER_PASSWORD: "" })).toMatchObject({
      credentials: undefined,
    })
  })

  it("serves on any loopback address without a password, and refuses other hosts without one", () => {
    for (const hostname of ["localhost", "127.0.0.2", "::1"])
      expect(parseArguments(["serve", "--hostname", hostname], {})).toMatchObject({ hostname })
    expect(usageError(() => parseArguments(["serve", "--hostname", "0.0.0.0"], {}))).toMatch(
      /0\.0\.0\.0 .*password/,
    )
    expect(parseArguments(["serve", "--hostname", "0.0.0.0", "--password", "x"], {})).toMatchObject({
      hostname: "0.0.0.0",
    })
  })

  it("answers help for --help, -h, help, and no command", () => {
    for (const argv of [["--help"], ["-h"], ["help"], ["serve", "--help"], []])
      expect(parseArguments(argv, {})).toEqual({ command: "help" })
  })

  it("refuses a port that is not one, an unknown option, an unknown command, two modules", () => {
    expect(usageError(() => parseArguments(["serve", "--port", "http"], {}))).toMatch(/--port/)
    expect(usageError(() => parseArguments(["serve", "--port", "70000"], {}))).toMatch(/--port/)
    expect(usageError(() => parseArguments(["serve", "--prot", "1"], {}))).toMatch(/--prot/)
    expect(usageError(() => parseArguments(["start"], {}))).toMatch(/start/)
    expect(usageError(() => parseArguments(["serve", "a.ts", "b.ts"], {}))).toMatch(/b\.ts/)
  })
})
