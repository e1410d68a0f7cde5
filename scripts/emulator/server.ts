/**
 * The loopback fakes' common ground: a server on 127.0.0.1 that records every request and can
 * answer a route with a fault. The service emulator (service.ts) is one; the tests' fakes of
 * Discord and GitHub (test/support/fakes.ts) are the others.
 */
import * as http from 'node:http'
import * as https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'

export interface RecordedRequest<Route extends string = string> {
  method: string
  path: string
  route: Route | 'other'
  headers: http.IncomingHttpHeaders
  body: string
  status: number
  /** The TCP connection it came on: 1 for the server's first, 2 for the next, ... */
  connection: number
  /**
   * When its head arrived, and when the answer's last byte was handed to the connection (0n until
   * then), on process.hrtime.bigint().
   */
  receivedNs: bigint
  answeredNs: bigint
}

/** A canned answer that replaces the server's own, once, for the next request to a route. */
export type Fault =
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body: string }
  | { kind: 'reset' }
  /** Handles the request as usual (its effects happen), then drops the connection unanswered. */
  | { kind: 'reset-after-handling' }
  /** Never answers; `seen` is called once the request has arrived. */
  | { kind: 'hang'; seen?: () => void }
  /** Sends an interim `103 Early Hints`, then drops the connection unhandled. */
  | { kind: 'interim-then-reset' }
  /** Sends the head, then the body two bytes at a time, slowly. */
  | { kind: 'drip'; status: number; body: string; intervalMs: number }
  /** Sends the status, headers and the start of the body, then drops the connection. */
  | { kind: 'partial'; status: number; body: string }
  /** Sends a body of this many bytes (or until the client goes away). */
  | { kind: 'huge'; status: number; bytes: number; contentType?: string }

/** An answer: a JSON body, or a raw `text`. */
export type Answer = {
  status: number
  headers?: Record<string, string>
  json?: unknown
  text?: string
}

/** Which route a request is, and the fake's answer to it. */
export type Router<Route extends string> = (
  method: string,
  path: string
) => {
  route: Route | 'other'
  reply: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => Answer
}

/**
 * Records each request and answers with its router or the fault queued for that route; keep-alive
 * for 5 s, as the live service.
 */
export class FakeServer<Route extends string> {
  readonly requests: RecordedRequest<Route>[] = []
  url = ''
  get port(): number {
    return (this.server.address() as AddressInfo).port
  }
  private connections = 0
  private readonly faults = new Map<string, Fault[]>()
  private readonly sockets = new Set<Socket>()
  private readonly server: http.Server | https.Server

  /**
   * With `tls`, an https server with that key and certificate; `latencyMs` delays each request's
   * handling.
   */
  constructor(
    private readonly router: Router<Route>,
    private readonly tls?: { key: string; cert: string },
    private readonly latencyMs = 0
  ) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void =>
      this.handle(req, res)
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler)
    this.server.keepAliveTimeout = 5_000
    this.server.on('connection', (socket: Socket) => {
      connectionIds.set(socket, ++this.connections)
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
  }

  /** Listens on 127.0.0.1 at a free port; `url` is then `http(s)://127.0.0.1:PORT` plus `path`. */
  async listen(path = ''): Promise<void> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}${path}`
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }

  /** Queues a fault for the next request to a route. */
  inject(route: Route, fault: Fault): void {
    this.faults.set(route, [...(this.faults.get(route) ?? []), fault])
  }

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
    const answer = (): void =>
      this.answer(req, res, Buffer.concat(chunks).toString('utf8'), receivedNs, connection)
    req.on('end', () => (this.latencyMs > 0 ? setTimeout(answer, this.latencyMs) : answer()))
  }

  /** Routes a request whose body has arrived, and answers it (or not, as a fault says). */
  private answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: string,
    receivedNs: bigint,
    connection: number
  ): void {
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
    if (fault !== undefined && 'status' in fault) entry.status = fault.status
    const cut = (): void => void setTimeout(() => req.socket.destroy(), 20)
    switch (fault?.kind) {
      case 'hang':
        return fault.seen?.()
      case 'interim-then-reset':
        return res.writeEarlyHints({ link: '</app.css>; rel=preload; as=style' }, cut)
      case 'reset':
        return void req.socket.destroy()
      case 'reset-after-handling':
        entry.status = reply(req, body, res).status
        return void req.socket.destroy()
      case 'drip': {
        res.writeHead(fault.status, { 'Content-Type': 'application/json' })
        let at = 0
        const timer = setInterval(() => {
          if (!res.destroyed && at < fault.body.length)
            return void res.write(fault.body.slice(at, (at += 2)))
          clearInterval(timer)
          if (!res.destroyed) res.end()
        }, fault.intervalMs)
        return void res.on('close', () => clearInterval(timer))
      }
      case 'partial':
        res.writeHead(fault.status, {
          'Content-Type': 'application/json',
          'Content-Length': String(fault.body.length * 2)
        })
        return void res.write(fault.body, cut)
      case 'huge': {
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
        return pump()
      }
    }
    const answer: Answer =
      fault?.kind === 'answer'
        ? { status: fault.status, headers: fault.headers, text: fault.body }
        : reply(req, body, res)
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
