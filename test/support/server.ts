/**
 * The common ground of the loopback fakes (the service emulator, Discord's API, GitHub's
 * contents API): a `node:http` server on 127.0.0.1 at a free port that records every
 * request, and can replace its next answer on a route with a fault.
 */
import * as http from 'node:http'
import * as https from 'node:https'
import type { AddressInfo, Server, Socket } from 'node:net'
import { afterTest } from './teardown.js'

export interface RecordedRequest<Route extends string = string> {
  method: string
  path: string
  route: Route | 'other'
  headers: http.IncomingHttpHeaders
  body: string
  status: number
  /** The TCP connection it came on: 1 for the server's first connection, 2 for the next, ... */
  connection: number
  /** When its head arrived, on process.hrtime.bigint()'s clock. */
  receivedNs: bigint
  /** When the last byte of the answer was handed to the connection, on the same clock; 0n until then. */
  answeredNs: bigint
}

/** A canned answer that replaces the server's own, once, for the next request to a route. */
export type Fault =
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body: string }
  | { kind: 'reset' }
  /** Handles the request as usual (its effects happen), then drops the connection unanswered. */
  | { kind: 'reset-after-handling' }
  | { kind: 'hang' }
  /** Sends an interim `103 Early Hints`, then drops the connection: no final answer (the request is not handled). */
  | { kind: 'interim-then-reset' }
  /** Sends the status and headers, then the body a few bytes at a time, slowly. */
  | { kind: 'drip'; status: number; body: string; intervalMs: number }
  /** Sends the status, headers and the start of the body, then drops the connection. */
  | { kind: 'partial'; status: number; body: string }
  /** Sends a body of this many bytes (or until the client goes away). */
  | { kind: 'huge'; status: number; bytes: number; contentType?: string }

export interface Answer {
  status: number
  headers?: Record<string, string>
  json?: unknown
  /** A raw body, sent instead of `json`. */
  text?: string
}

/** How a fake answers: which route a request is, and the answer to it. */
export type Router<Route extends string> = (
  method: string,
  path: string
) => { route: Route | 'other'; reply: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => Answer }

/**
 * The idle time after which the server closes a kept-alive connection, announced in
 * `Keep-Alive: timeout=5` with `Connection: keep-alive` on every answer, as the live service does.
 */
export const KEEP_ALIVE_MS = 5_000

export class FakeServer<Route extends string> {
  readonly requests: RecordedRequest<Route>[] = []
  /** TCP connections accepted, TLS or not. */
  connections = 0
  url = ''
  /** The port listened on, once listening. */
  get port(): number {
    return (this.server.address() as AddressInfo).port
  }
  private readonly faults = new Map<string, Fault[]>()
  private readonly sockets = new Set<Socket>()
  private readonly server: http.Server | https.Server
  private readonly scheme: 'http' | 'https'

  /** With `tls`, an https server with that key and certificate; `latencyMs` delays each request's handling. */
  constructor(
    private readonly router: Router<Route>,
    tls?: { key: string; cert: string },
    private readonly latencyMs = 0
  ) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => this.handle(req, res)
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler)
    this.scheme = tls ? 'https' : 'http'
    this.server.keepAliveTimeout = KEEP_ALIVE_MS
    this.server.on('connection', (socket: Socket) => {
      connectionIds.set(socket, ++this.connections)
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
  }

  /** Listens on 127.0.0.1 at a free port; `url` is then `http://127.0.0.1:PORT` plus `path`. */
  async listen(path = ''): Promise<void> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    const { port } = this.server.address() as AddressInfo
    this.url = `${this.scheme}://127.0.0.1:${port}${path}`
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }

  /** Queues a fault for the next request to a route. */
  inject(route: Route, fault: Fault): void {
    const queue = this.faults.get(route) ?? []
    queue.push(fault)
    this.faults.set(route, queue)
  }

  /** The requests to one route. */
  received(route: Route | 'other'): RecordedRequest<Route>[] {
    return this.requests.filter(r => r.route === route)
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const receivedNs = process.hrtime.bigint()
    // Over TLS the request's socket wraps the TCP connection the server accepted.
    const tcp = (req.socket as Socket & { _parent?: Socket })._parent ?? req.socket
    const connection = connectionIds.get(tcp) ?? connectionIds.get(req.socket) ?? 0
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () =>
      this.latencyMs > 0
        ? setTimeout(() => this.answer(req, res, chunks, receivedNs, connection), this.latencyMs)
        : this.answer(req, res, chunks, receivedNs, connection)
    )
  }

  /** Routes a request whose body has arrived, and answers it (or not, as a fault says). */
  private answer(req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[], receivedNs: bigint, connection: number): void {
    const body = Buffer.concat(chunks).toString('utf8')
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const { route, reply } = this.router(req.method ?? 'GET', path)
    const entry: RecordedRequest<Route> = {
      method: req.method ?? '',
      path,
      route,
      headers: req.headers,
      body,
      status: 0,
      connection,
      receivedNs,
      answeredNs: 0n
    }
    this.requests.push(entry)
    res.on('finish', () => (entry.answeredNs = process.hrtime.bigint()))

    const fault = this.faults.get(route)?.shift()
    if (fault?.kind === 'hang') return
    if (fault?.kind === 'interim-then-reset') {
      res.writeEarlyHints({ link: '</app.css>; rel=preload; as=style' }, () => setTimeout(() => req.socket.destroy(), 20))
      return
    }
    if (fault?.kind === 'reset') {
      req.socket.destroy()
      return
    }
    if (fault?.kind === 'reset-after-handling') {
      entry.status = reply(req, body, res).status
      req.socket.destroy()
      return
    }
    if (fault?.kind === 'drip') {
      entry.status = fault.status
      res.writeHead(fault.status, { 'Content-Type': 'application/json' })
      let at = 0
      const timer = setInterval(() => {
        if (res.destroyed || at >= fault.body.length) {
          clearInterval(timer)
          if (!res.destroyed) res.end()
          return
        }
        res.write(fault.body.slice(at, at + 2))
        at += 2
      }, fault.intervalMs)
      res.on('close', () => clearInterval(timer))
      return
    }
    if (fault?.kind === 'partial') {
      entry.status = fault.status
      res.writeHead(fault.status, { 'Content-Type': 'application/json', 'Content-Length': String(fault.body.length * 2) })
      res.write(fault.body, () => setTimeout(() => req.socket.destroy(), 20))
      return
    }
    if (fault?.kind === 'huge') {
      entry.status = fault.status
      res.writeHead(fault.status, { 'Content-Type': fault.contentType ?? 'text/html' })
      const chunk = Buffer.alloc(64 * 1024, '<p>spam</p>')
      let sent = 0
      const pump = (): void => {
        while (sent < fault.bytes && !res.destroyed) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        if (!res.destroyed) res.end()
      }
      pump()
      return
    }
    const answer: Answer =
      fault?.kind === 'answer' ? { status: fault.status, headers: fault.headers, text: fault.body } : reply(req, body, res)
    entry.status = answer.status
    const headers: Record<string, string> = { ...answer.headers }
    let text = answer.text
    if (answer.json !== undefined) {
      headers['Content-Type'] ??= 'application/json; charset=utf-8'
      text = JSON.stringify(answer.json)
    }
    res.writeHead(answer.status, headers).end(text)
  }
}

/** Each accepted TCP connection's number. */
const connectionIds = new WeakMap<Socket, number>()

/** The live service's error body. */
export function serviceError(status: number, message: string): Answer {
  return { status, json: { success: false, error: message, status } }
}

/**
 * Starts `server` (a plain `node:http` or `node:net` server a test builds for itself) on
 * 127.0.0.1 at a free port, and returns the port; when the test finishes, its connections are
 * cut and it is closed.
 */
export async function listenForTest(server: Server): Promise<number> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  afterTest(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  })
  return (server.address() as AddressInfo).port
}
