import { EventEmitter } from "eventemitter3"
import type { Event, EventOf, EventProperties, EventType } from "../schema/events.js"

const ANY = Symbol("any")
const CLOSE = Symbol("close")

/**
 * Most events a stream holds for its reader. A stream nobody reads (a request that failed
 * before its loop started) would otherwise grow until the runtime closes; past this it lets go
 * of the bus and ends once what it holds is read.
 */
const MAX_BUFFERED = 10_000

/** Stops the listener it was returned for; calling it again does nothing. */
export type Unsubscribe = () => void
/**
 * Called synchronously on publish. What it returns is ignored, except a promise, whose
 * rejection goes to `onListenerError` like a throw: `(event) => process.stdout.write(...)` is fine.
 */
export type Listener<E> = (event: E) => unknown
export type ListenerErrorHandler = (error: unknown, event: Event) => void

/** What `runtime.events.stream` filters by, and when it ends. */
export type StreamOptions = {
  /** Only events of this session. */
  sessionID?: string
  /** Ends the stream when aborted. */
  signal?: AbortSignal
}

/** The subscriber's view of a runtime's events. */
export type Events = {
  on<T extends EventType>(type: T, listener: Listener<EventOf<T>>): Unsubscribe
  onAny(listener: Listener<Event>): Unsubscribe
  /**
   * Events in publish order, from this call on, until the signal aborts, the runtime closes or
   * the reader falls 10,000 events behind. One reader: every iteration continues the same stream.
   */
  stream(options?: StreamOptions): AsyncIterable<Event>
  /** Listeners currently attached, including those of open streams. */
  listenerCount(): number
}

export type Bus = Events & {
  publish<T extends EventType>(type: T, properties: EventProperties<T>): void
  /** Hands listeners an event that was published elsewhere (another process's), as it is. */
  deliver(event: Event): void
  close(): void
}

export function createBus(options: { onListenerError?: ListenerErrorHandler } = {}): Bus {
  const bus: BusState = {
    emitter: new EventEmitter(),
    onListenerError: options.onListenerError ?? defaultListenerError,
    closed: false,
  }
  const { emitter } = bus
  return {
    publish(type, properties) {
      deliver(bus, { type, properties } as Event)
    },
    deliver: (event) => deliver(bus, event),
    on(type, listener) {
      return subscribe(bus, type, guard(bus, listener))
    },
    onAny(listener) {
      return subscribe(bus, ANY, guard(bus, listener))
    },
    stream(streamOptions = {}) {
      // Opened now, not when iterated: what is published before the first read is kept for it.
      const iterator = openStream(bus, streamOptions)
      return { [Symbol.asyncIterator]: () => iterator }
    },
    listenerCount() {
      return emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0)
    },
    close() {
      if (bus.closed) return
      emitter.emit(CLOSE)
      bus.closed = true
      emitter.removeAllListeners()
    },
  }
}

/** One bus's state, passed to the functions below. */
type BusState = { emitter: EventEmitter; onListenerError: ListenerErrorHandler; closed: boolean }

// A throwing listener must not break the writer that published: storage is already updated.
function guard<E extends Event>(bus: BusState, listener: Listener<E>) {
  return (event: Event) => {
    try {
      const result = listener(event as E)
      if (result instanceof Promise) result.catch((error: unknown) => bus.onListenerError(error, event))
    } catch (error) {
      bus.onListenerError(error, event)
    }
  }
}

function deliver(bus: BusState, event: Event): void {
  if (bus.closed) return
  bus.emitter.emit(event.type, event)
  bus.emitter.emit(ANY, event)
}

function subscribe(bus: BusState, name: string | symbol, listener: (event: Event) => void): Unsubscribe {
  if (bus.closed) return () => {}
  bus.emitter.on(name, listener)
  return () => bus.emitter.off(name, listener)
}

function openStream(bus: BusState, { sessionID, signal }: StreamOptions): AsyncIterator<Event> {
  const { emitter } = bus
  const buffered: Event[] = []
  let waiting: ((result: IteratorResult<Event>) => void) | undefined
  let done = bus.closed || signal?.aborted === true

  const onEvent = (event: Event) => {
    if (sessionID !== undefined && sessionIDOf(event) !== sessionID) return
    if (waiting) {
      const resolve = waiting
      waiting = undefined
      resolve({ value: event, done: false })
    } else if (buffered.length < MAX_BUFFERED) buffered.push(event)
    else finish()
  }
  const finish = () => {
    if (done && !waiting) return
    done = true
    emitter.off(ANY, onEvent)
    emitter.off(CLOSE, finish)
    signal?.removeEventListener("abort", finish)
    if (waiting) {
      const resolve = waiting
      waiting = undefined
      resolve({ value: undefined, done: true })
    }
  }

  if (!done) {
    emitter.on(ANY, onEvent)
    emitter.on(CLOSE, finish)
    signal?.addEventListener("abort", finish, { once: true })
  }

  return {
    next() {
      const event = buffered.shift()
      if (event) return Promise.resolve({ value: event, done: false })
      if (done) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve) => {
        waiting = resolve
      })
    },
    return() {
      buffered.length = 0
      finish()
      return Promise.resolve({ value: undefined, done: true })
    },
  }
}

function sessionIDOf(event: Event): string | undefined {
  return (event.properties as { sessionID?: string }).sessionID
}

function defaultListenerError(error: unknown, event: Event) {
  console.error(`agentloop: a listener for ${event.type} threw`, error)
}
