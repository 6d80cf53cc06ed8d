type DenoPermissions = {
  permissions: { requestSync(descriptor: { name: "net"; host: string }): { state: string } }
  errors: { NotCapable: new (message: string) => Error }
}

/**
 * Under Deno, the error for a listen that --allow-net does not grant, or undefined when it is
 * granted (or this is not Deno). Deno's node:http throws that refusal after listen() returns,
 * where neither a catch nor an "error" listener reaches it and the process dies; asked first
 * (as Deno itself asks: a prompt on a terminal), serve() can reject with it instead.
 */
export function deniedListen(hostname: string, port: number): Error | undefined {
  const deno = (globalThis as { Deno?: DenoPermissions }).Deno
  if (!deno) return undefined
  const host = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`
  if (deno.permissions.requestSync({ name: "net", host }).state === "granted") return undefined
  return new deno.errors.NotCapable(`Requires net access to "${host}", run again with the --allow-net flag`)
}
