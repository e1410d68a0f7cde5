/**
 * A small forward proxy for tests, on 127.0.0.1 at a free port, the kind a self-hosted
 * runner reaches through `HTTPS_PROXY` / `HTTP_PROXY`. It maps host names to loopback
 * ports, so a run can aim at the real names (`api.discord.place:443`, `discord.com:443`)
 * while the answers come from the loopback fakes; the client never resolves those names
 * itself when it uses a proxy.
 *
 * - `CONNECT host:port` is tunnelled to 127.0.0.1 at the port mapped from `host:port`;
 * - a plain proxied request (`GET http://host:port/path`) is forwarded the same way;
 * - an unmapped target is refused with 502;
 * - with `hangConnects`, a CONNECT is read and never answered (a proxy that hangs).
 * Every CONNECT target and every plain request's absolute URL is recorded, mapped or not, and
 * when the client closed each CONNECT's connection.
 */
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as net from 'node:net'

export class ForwardProxy {
  /** `host:port` of every CONNECT, in order, refused ones included. */
  readonly connects: string[] = []
  /** The absolute URL of every plain proxied request, in order, refused ones included. */
  readonly requests: string[] = []
  /** `host:port` -> loopback port; may be changed while the proxy runs. */
  readonly map: Map<string, number>
  /**
   * For every CONNECT, in order: settles with `performance.now()` when the client's connection
   * to the proxy closes, whichever side closed it (with `hangConnects`, only the client does,
   * until the proxy itself is closed).
   */
  readonly connectClosed: Promise<number>[] = []
  /** When set, the `Proxy-Authorization` a request must carry; others are answered 407. */
  requireAuthorization: string | undefined
  /** When set, a CONNECT is read and never answered: neither opened nor refused, as a hung proxy does. */
  hangConnects = false
  private readonly server: http.Server
  private readonly sockets = new Set<net.Socket>()

  private constructor(map: Record<string, number>) {
    this.map = new Map(Object.entries(map).map(([target, port]) => [target.toLowerCase(), port]))
    this.server = http.createServer((req, res) => this.forward(req, res))
    this.server.on('connection', socket => this.track(socket))
    this.server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => this.tunnel(req, socket, head))
  }

  /** Starts a proxy with a map of `host:port` to loopback port, e.g. `{ 'api.discord.place:443': emulator.port }`. */
  static async start(map: Record<string, number>): Promise<ForwardProxy> {
    const proxy = new ForwardProxy(map)
    await new Promise<void>(resolve => proxy.server.listen(0, '127.0.0.1', resolve))
    return proxy
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port
  }

  /** The proxy's address, for `HTTPS_PROXY` / `HTTP_PROXY`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Stops listening and destroys every open connection, tunnels included. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
  }

  private target(hostPort: string): number | undefined {
    return this.map.get(hostPort.toLowerCase())
  }

  private tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const target = req.url ?? ''
    this.connects.push(target)
    this.connectClosed.push(new Promise(resolve => client.once('close', () => resolve(performance.now()))))
    client.on('error', () => client.destroy())
    if (this.hangConnects) {
      // Reads on (the server keeps a half-open connection), so that the client's close is seen.
      client.on('end', () => client.destroy()).resume()
      return
    }
    if (this.requireAuthorization !== undefined && req.headers['proxy-authorization'] !== this.requireAuthorization) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'
      )
      return
    }
    const port = this.target(target)
    if (port === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
      return
    }
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    this.track(upstream)
    upstream.on('error', () => {
      if (!client.writableEnded && upstream.connecting)
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
      else client.destroy()
    })
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const raw = req.url ?? ''
    this.requests.push(raw)
    let url: URL | undefined
    try {
      url = new URL(raw)
    } catch {
      url = undefined
    }
    const port = url === undefined || url.protocol !== 'http:' ? undefined : this.target(`${url.hostname}:${url.port || '80'}`)
    if (url === undefined || port === undefined) {
      req.resume()
      res.writeHead(502, { 'Content-Length': '0', Connection: 'close' }).end()
      return
    }
    const headers = { ...req.headers }
    delete headers['proxy-connection']
    delete headers['proxy-authorization']
    const upstream = http.request(
      { host: '127.0.0.1', port, method: req.method, path: `${url.pathname}${url.search}`, headers },
      answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Length': '0', Connection: 'close' }).end()
      else res.destroy()
    })
    req.pipe(upstream)
  }
}
