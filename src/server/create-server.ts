import { Hono } from "hono"
import { bodyLimit } from "hono/body-limit"
import { cors } from "hono/cors"
import type { MiddlewareHandler } from "hono/types"
import { NotFoundError } from "../error/not-found.js"
import type { Runtime } from "../runtime.js"
import { askRoutes } from "./ask-routes.js"
import { chatHandler } from "./chat.js"
import { errorResponse } from "./error-status.js"
import { PayloadTooLargeError, UnauthorizedError } from "./errors.js"
import { eventRoute } from "./event-route.js"
import { historyRoutes } from "./history-routes.js"
import { openAPIDocument } from "./openapi.js"
import { DEFAULT_BODY_LIMIT, DEFAULT_HEARTBEAT_MS, type ServerOptions } from "./options.js"
import { promptRoutes } from "./prompt-routes.js"
import { routes } from "./route-specs.js"
import { createServerEvents } from "./server-events.js"
import { sessionRoutes } from "./session-routes.js"

/**
 * The runtime over HTTP: a hono app whose `fetch` serves the routes of docs/server.md. Serve it
 * with `serve(app)` on Node, or hand `app.fetch` to any server that speaks the fetch API.
 */
export function createServer(runtime: Runtime, options: ServerOptions = {}): Hono {
  const app = new Hono()
  // CORS first: a browser's preflight carries no credentials, and a 401 needs CORS headers to be readable.
  if (options.cors) app.use(cors({ origin: options.cors.origin }))
  app.use(authorize(options.authorize))
  app.use(limitBody(options.bodyLimit ?? DEFAULT_BODY_LIMIT))

  const events = createServerEvents()
  sessionRoutes(app, runtime)
  historyRoutes(app, runtime)
  promptRoutes(app, runtime, events)
  askRoutes(app, runtime)
  const chat = chatHandler(runtime)
  app.post(routes.chat.path, (c) => chat(c.req.raw, c.req.param("id")))
  eventRoute(app, { runtime, events, heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS })
  app.get(routes.doc.path, (c) => c.json(openAPIDocument()))

  app.notFound((c) => errorResponse(c, NotFoundError.of("Route", `${c.req.method} ${c.req.path}`)))
  app.onError((error, c) => errorResponse(c, error))
  return app
}

function authorize(check: ServerOptions["authorize"]): MiddlewareHandler {
  return async (c, next) => {
    if (check && !(await check(c.req.raw)))
      return errorResponse(c, new UnauthorizedError({ message: "The request is not authorized" }))
    await next()
  }
}

function limitBody(maxSize: number): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: (c) =>
      errorResponse(
        c,
        new PayloadTooLargeError({ message: `The request body is over ${maxSize} bytes`, limit: maxSize }),
      ),
  })
}
