/**
 * A small forward proxy for tests, on 127.0.0.1 at a free port, as a self-hosted runner reaches
 * through `HTTPS_PROXY` / `HTTP_PROXY`. `CONNECT host:port` is tunnelled to the loopback port
 * mapped from `host:port`, so a run aims at the real names while the loopback fakes answer. An
 * unmapped target, or a plain proxied request (the client never sends one: it tunnels), gets a 502.
 */
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as net from 'node:net'

const BAD_GATEWAY = 'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'

export class ForwardProxy {
  /** `host:port` of every CONNECT, in order, refused ones included. */
  readonly connects: string[] = []
  /** The absolute URL of every plain proxied request (none is expected: the client tunnels). */
  readonly requests: string[] = []
  /** `host:port` -> loopback port; may be changed while the proxy runs. */
  readonly map: Map<string, number>
  /**
   * For every CONNECT: settles when the client's connection to the proxy closes, whichever side
   * closed it.
   */
  readonly connectClosed: Promise<unknown>[] = []
  /** When set, the `Proxy-Authorization` a CONNECT must carry; others are answered 407. */
  requireAuthorization: string | undefined
  /** When set, a CONNECT is read and never answered, as a hung proxy does. */
  hangConnects = false
  private readonly server: http.Server
  private readonly sockets = new Set<net.Socket>()

  private constructor(map: Record<string, number>) {
    this.map = new Map(Object.entries(map).map(([target, port]) => [target.toLowerCase(), port]))
    this.server = http.createServer((req, res) => {
      this.requests.push(req.url ?? '')
      req.resume()
      res.writeHead(502, { 'Content-Length': '0', Connection: 'close' }).end()
    })
    this.server.on('connection', socket => this.track(socket))
    this.server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) =>
      this.tunnel(req, socket, head)
    )
  }

  /**
   * Starts a proxy with a map of `host:port` to loopback port, e.g. `{ 'api.discord.place:443':
   * emulator.port }`.
   */
  static async start(map: Record<string, number>): Promise<ForwardProxy> {
    const proxy = new ForwardProxy(map)
    await new Promise<void>(resolve => proxy.server.listen(0, '127.0.0.1', resolve))
    return proxy
  }

  /** The proxy's address, for `HTTPS_PROXY` / `HTTP_PROXY`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
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

  private tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const target = req.url ?? ''
    this.connects.push(target)
    this.connectClosed.push(new Promise(resolve => client.once('close', resolve)))
    client.on('error', () => client.destroy())
    if (this.hangConnects) {
      // Reads on (the server keeps a half-open connection), so that the client's close is seen.
      client.on('end', () => client.destroy()).resume()
      return
    }
    if (
      this.requireAuthorization !== undefined &&
      req.headers['proxy-authorization'] !== this.requireAuthorization
    ) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'
      )
      return
    }
    const port = this.map.get(target.toLowerCase())
    if (port === undefined) return void client.end(BAD_GATEWAY)
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    this.track(upstream)
    upstream.on('error', () =>
      !client.writableEnded && upstream.connecting ? client.end(BAD_GATEWAY) : client.destroy()
    )
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
  }
}
