// Under Deno without --allow-net, node:http throws its refusal after listen() returns, where no
// catch reaches it, and the process died. serve() asks Deno first and rejects instead.
// test/runtimes/check.ts meets it for real under Deno; here a stand-in Deno denies the network.
import { afterEach, describe, expect, it } from "vitest"
import { serve } from "../../src/server/index.js"

class NotCapable extends Error {
  override name = "NotCapable"
}

const asked: { name: string; host: string }[] = []
function pretendDeno(state: "granted" | "denied"): void {
  const permissions = {
    requestSync: (descriptor: { name: string; host: string }) => {
      asked.push(descriptor)
      return { state }
    },
  }
  Object.assign(globalThis, { Deno: { permissions, errors: { NotCapable } } })
}

afterEach(() => {
  Reflect.deleteProperty(globalThis, "Deno")
  asked.length = 0
})

const app = { fetch: () => new Response("hello") }

describe("serve() under Deno", () => {
  it("rejects with Deno's NotCapable, naming the flag, when --allow-net does not grant the address", async () => {
    pretendDeno("denied")
    const error = await serve(app, { port: 0 }).then(
      async (running) => {
        await running.close()
        return undefined
      },
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(NotCapable)
    expect((error as Error).message).toBe(
      'Requires net access to "127.0.0.1:0", run again with the --allow-net flag',
    )
    expect(asked).toEqual([{ name: "net", host: "127.0.0.1:0" }])
  })

  it("asks for an IPv6 address in brackets, and listens when granted", async () => {
    pretendDeno("granted")
    const running = await serve(app, { port: 0, hostname: "[::1]" })
    try {
      expect(await (await fetch(running.url)).text()).toBe("hello")
    } finally {
      await running.close()
    }
    expect(asked).toEqual([{ name: "net", host: "[::1]:0" }])
  })
})
