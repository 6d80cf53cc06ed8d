import { Hono } from "hono"
import { bodyLimit } from "hono/body-limit"
import { cors } from "hono/cors"
import type { MiddlewareHandler } from "hono/types"
import { openAPIRouteHandler } from "hono-openapi"
import { NotFoundError } from "../error/not-found.js"
import type { Runtime } from "../runtime/runtime.js"
import { VERSION } from "../version.js"
import { askRoutes } from "./ask-routes.js"
import { catalogueRoutes } from "./catalogue-routes.js"
import { chatHandler } from "./chat.js"
import { emptyRoutes } from "./empty-routes.js"
import { errorResponse } from "./error-status.js"
import { PayloadTooLargeError, UnauthorizedError } from "./errors.js"
import { eventRoutes } from "./event-route.js"
import { historyRoutes, PAGE_HEADERS } from "./history-routes.js"
import { guardHosts } from "./host-guard.js"
import { inputs } from "./inputs.js"
import { checkLocation } from "./location.js"
import { DEFAULT_BODY_LIMIT, DEFAULT_HEARTBEAT_MS, type ServerOptions } from "./options.js"
import { promptRoutes } from "./prompt-routes.js"
import { documented } from "./route-doc.js"
import { createServerEvents } from "./server-events.js"
import { sessionRoutes } from "./session-routes.js"
import { skillRoutes } from "./skill-routes.js"
import { v2Routes } from "./v2-routes.js"

/**
 * The runtime over HTTP, speaking OpenCode's server API (docs/server.md), so that OpenCode's SDK
 * and terminal UI drive it: a hono app. Serve it with `serve(app)` on Node, or hand `app.fetch` to
 * any server that speaks the fetch API.
 */
export function createServer(runtime: Runtime, options: ServerOptions = {}): Hono {
  const app = new Hono()
  // CORS first: a browser's preflight carries no credentials, and a 401 needs CORS headers to be readable.
  // A page reads only the headers named here: the message pages' cursor and link among them.
  if (options.cors) app.use(cors({ origin: options.cors.origin, exposeHeaders: PAGE_HEADERS }))
  if (options.authorize) app.use(authorize(options.authorize, options.challenge))
  else app.use(guardHosts({ allowedHosts: options.allowedHosts, corsOrigins: corsOrigins(options.cors) }))
  app.use(limitBody(options.bodyLimit ?? DEFAULT_BODY_LIMIT))
  app.use(checkLocation(runtime.directory))

  const events = createServerEvents()
  sessionRoutes(app, runtime)
  historyRoutes(app, runtime)
  promptRoutes(app, runtime, events)
  askRoutes(app, runtime)
  catalogueRoutes(app, runtime)
  emptyRoutes(app, runtime)
  skillRoutes(app, runtime)
  v2Routes(app, runtime)
  eventRoutes(app, { runtime, events, heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS })
  const chat = chatHandler(runtime)
  app.post(
    "/session/:sessionID/chat",
    documented({
      operationId: "session.chat",
      summary:
        "Prompt with the last user message of an AI SDK useChat request; answers its UI message stream",
      body: inputs.chat,
    }),
    (c) => chat(c.req.raw, c.req.param("sessionID")),
  )
  app.get(
    "/doc",
    openAPIRouteHandler(app, {
      documentation: {
        info: {
          title: "agentloop",
          version: VERSION,
          description: "OpenCode's server API over an agentloop runtime",
        },
      },
    }),
  )

  app.notFound((c) => errorResponse(c, NotFoundError.of("Route", `${c.req.method} ${c.req.path}`)))
  app.onError((error, c) => errorResponse(c, error))
  return app
}

function corsOrigins(cors: ServerOptions["cors"]): readonly string[] {
  if (!cors) return []
  return typeof cors.origin === "string" ? [cors.origin] : cors.origin
}

function authorize(
  check: NonNullable<ServerOptions["authorize"]>,
  challenge: string | undefined,
): MiddlewareHandler {
  return async (c, next) => {
    if (!(await check(c.req.raw))) {
      if (challenge !== undefined) c.header("WWW-Authenticate", challenge)
      return errorResponse(c, new UnauthorizedError({ message: "The request is not authorized" }))
    }
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
