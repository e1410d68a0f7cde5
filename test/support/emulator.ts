/**
 * A loopback emulator of the bot listing service, strict to ../shared/spec/discord-place-openapi.json
 * and to the live service's rules that the document leaves out:
 * - one stats update per bot per 6 hours; a refused early update is a strike, and the 5th
 *   strike within 6 hours revokes the key (410, then 401 "revoked" for that key);
 * - a server count is accepted only within max(50, 10%) of the bot's real (Discord) count;
 * - rate limits per route with `RateLimit-*` headers, and a 429 with `retry_after`;
 * - the bot's public record `GET /bots/{id}` (no key), 403 while the bot is unverified;
 * - vote checks answering `200 {"voted","vote","lastVote"}`, or `204` in the style of the
 *   original description.
 * It records every request, so tests assert what the service received.
 */
import type * as http from 'node:http'
import { type Answer, FakeServer, type Fault, type Router, type RecordedRequest as ServerRequest, serviceError } from './server.js'

export const SIX_HOURS = 6 * 60 * 60 * 1000

export interface BotSeed {
  id: string
  apiKey: string
  verified?: boolean
  commands?: number
  servers?: number
  /** When the counts were last updated; default long ago. */
  commandsUpdatedAt?: Date
  serversUpdatedAt?: Date
  /** The count Discord reports, that the server count is checked against; default `servers`. */
  realServerCount?: number
  /** Strikes already counted within the window (times of refused early updates). */
  strikes?: Date[]
  /** Vote state per user ID. */
  voters?: Record<string, { vote: number; lastVote: Date | null }>
}

interface BotState {
  id: string
  apiKey: string
  revokedKeys: Set<string>
  verified: boolean
  commands: number
  servers: number
  commandsUpdatedAt: Date
  serversUpdatedAt: Date
  realServerCount: number
  strikes: Date[]
  voters: Record<string, { vote: number; lastVote: Date | null }>
}

export interface RateWindow {
  route: RouteKind
  start: number
  count: number
  refused: number
}

export interface RateLimit {
  limit: number
  windowMs: number
}

export type RouteKind = 'stats' | 'record' | 'votes'

export interface EmulatorOptions {
  bots?: BotSeed[]
  /** A path the service is mounted under, e.g. `/api`. */
  prefix?: string
  rateLimits?: Partial<Record<RouteKind, RateLimit>>
  /** Vote check style: the live service's 200 JSON (default), or 204 for a vote as the original description has it. */
  voteStyle?: 'json' | 'no-content'
  now?: () => number
  /** Serve https with this key and certificate. */
  tls?: { key: string; cert: string }
}

export type { Fault } from './server.js'
export type RecordedRequest = ServerRequest<RouteKind>

const DEFAULT_LIMITS: Record<RouteKind, RateLimit> = {
  stats: { limit: 100, windowMs: 60_000 },
  record: { limit: 100, windowMs: 60_000 },
  votes: { limit: 100, windowMs: 300_000 }
}

export class ServiceEmulator {
  private readonly bots = new Map<string, BotState>()
  private readonly windows = new Map<RouteKind, RateWindow>()
  /** Every rate-limit window opened, with the requests it counted and the 429s it answered. */
  readonly windowLog: RateWindow[] = []
  private readonly server: FakeServer<RouteKind>
  private readonly prefix: string
  private readonly limits: Record<RouteKind, RateLimit>
  private readonly now: () => number
  private readonly voteStyle: 'json' | 'no-content'

  private constructor(options: EmulatorOptions) {
    this.prefix = (options.prefix ?? '').replace(/\/+$/, '')
    this.limits = { ...DEFAULT_LIMITS, ...options.rateLimits }
    this.now = options.now ?? Date.now
    this.voteStyle = options.voteStyle ?? 'json'
    for (const seed of options.bots ?? []) this.addBot(seed)
    this.server = new FakeServer<RouteKind>((method, path) => this.route(method, path), options.tls)
  }

  /** Starts an emulator on 127.0.0.1 at a free port. */
  static async start(options: EmulatorOptions = {}): Promise<ServiceEmulator> {
    const emulator = new ServiceEmulator(options)
    await emulator.server.listen(emulator.prefix)
    return emulator
  }

  /** The port listened on. */
  get port(): number {
    return this.server.port
  }

  /** The service's base address, prefix included. */
  get url(): string {
    return this.server.url
  }

  get requests(): RecordedRequest[] {
    return this.server.requests
  }

  close(): Promise<void> {
    return this.server.close()
  }

  /** Queues a fault for the next request to a route. */
  inject(route: RouteKind, fault: Fault): void {
    this.server.inject(route, fault)
  }

  /** The requests to one route. */
  received(route: RouteKind | 'other'): RecordedRequest[] {
    return this.server.received(route)
  }

  addBot(seed: BotSeed): void {
    const longAgo = new Date(this.now() - 30 * 24 * 60 * 60 * 1000)
    this.bots.set(seed.id, {
      id: seed.id,
      apiKey: seed.apiKey,
      revokedKeys: new Set(),
      verified: seed.verified ?? true,
      commands: seed.commands ?? 0,
      servers: seed.servers ?? 0,
      commandsUpdatedAt: seed.commandsUpdatedAt ?? longAgo,
      serversUpdatedAt: seed.serversUpdatedAt ?? longAgo,
      realServerCount: seed.realServerCount ?? seed.servers ?? 0,
      strikes: [...(seed.strikes ?? [])],
      voters: { ...seed.voters }
    })
  }

  /** The bot's stored state, for assertions. */
  bot(id: string): Readonly<BotState> {
    const bot = this.bots.get(id)
    if (bot === undefined) throw new Error(`no bot ${id}`)
    return bot
  }

  private route(method: string, fullPath: string): ReturnType<Router<RouteKind>> {
    const path = fullPath.startsWith(this.prefix) ? fullPath.slice(this.prefix.length) : '\0'
    let m = /^\/bots\/([^/]+)\/stats$/.exec(path)
    if (m && method === 'PATCH') return this.limited('stats', (req, body) => this.updateStats(m![1]!, req, body))
    m = /^\/bots\/([^/]+)\/voters\/([^/]+)$/.exec(path)
    if (m && method === 'GET') return this.limited('votes', req => this.voteStatus(m![1]!, m![2]!, req))
    m = /^\/bots\/([^/]+)$/.exec(path)
    if (m && method === 'GET') return this.limited('record', () => this.publicRecord(m![1]!))
    return { route: 'other', reply: () => error(404, 'Not found.') }
  }

  private limited(route: RouteKind, handler: Handler): ReturnType<Router<RouteKind>> {
    return { route, reply: (req, body, res) => this.rateLimit(route, res) ?? handler(req, body) }
  }

  /** Fixed-window limiter per route and bot path, with the `RateLimit-*` headers on every answer. */
  private rateLimit(route: RouteKind, res: http.ServerResponse): Answer | undefined {
    const { limit, windowMs } = this.limits[route]
    const now = this.now()
    let window = this.windows.get(route)
    if (window === undefined || now - window.start >= windowMs) {
      window = { route, start: now, count: 0, refused: 0 }
      this.windows.set(route, window)
      this.windowLog.push(window)
    }
    window.count += 1
    const reset = Math.max(0, Math.ceil((window.start + windowMs - now) / 1000))
    res.setHeader('RateLimit-Limit', String(limit))
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - window.count)))
    res.setHeader('RateLimit-Reset', String(reset))
    if (window.count <= limit) return undefined
    window.refused += 1
    return {
      status: 429,
      headers: { 'Retry-After': String(reset) },
      json: { success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: reset }
    }
  }

  private updateStats(id: string, req: http.IncomingMessage, raw: string): Answer {
    const type = String(req.headers['content-type'] ?? '')
    let body: unknown = {}
    if (/^application\/json\b/i.test(type)) {
      try {
        body = JSON.parse(raw)
      } catch {
        return error(400, 'Invalid JSON body.')
      }
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return error(400, 'Request body must be an object.')
    const fields = body as Record<string, unknown>
    const unknown = Object.keys(fields).filter(k => k !== 'command_count' && k !== 'server_count')
    if (unknown.length > 0) return error(400, `Unknown field: ${unknown[0]}.`)
    if (Object.keys(fields).length === 0) {
      return error(400, 'One of the following fields is required: command_count, server_count.')
    }
    const commands = fields['command_count']
    const servers = fields['server_count']
    if (commands !== undefined && !isIntegerIn(commands, 0, 1000)) return error(400, 'Commands count must be between 0 and 1,000.')
    if (servers !== undefined && !isIntegerIn(servers, 0, 10_000_000)) return error(400, 'Server count must be between 0 and 10 Million.')

    const key = req.headers['authorization']
    if (key === undefined || key === '') return error(401, 'Authorization header is required.')
    const bot = this.bots.get(id)
    if (bot === undefined) return error(404, 'Bot not found.')
    if (bot.revokedKeys.has(key)) return error(401, 'This API key has been revoked.')
    if (key !== bot.apiKey) return error(401, 'Invalid API key.')

    const now = this.now()
    const last = Math.max(bot.commandsUpdatedAt.getTime(), bot.serversUpdatedAt.getTime())
    if (now - last < SIX_HOURS) {
      bot.strikes = bot.strikes.filter(t => now - t.getTime() < SIX_HOURS)
      bot.strikes.push(new Date(now))
      if (bot.strikes.length >= 5) {
        bot.revokedKeys.add(bot.apiKey)
        bot.apiKey = `revoked-${bot.apiKey}`
        return error(410, 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.')
      }
      return error(429, 'You can only update stats once every 6 hours.')
    }
    if (typeof servers === 'number') {
      const tolerance = Math.max(50, Math.floor(bot.realServerCount * 0.1))
      if (Math.abs(servers - bot.realServerCount) > tolerance) {
        return error(400, 'Server count is too different from the actual server count.')
      }
    }
    if (typeof commands === 'number') {
      bot.commands = commands
      bot.commandsUpdatedAt = new Date(now)
    }
    if (typeof servers === 'number') {
      bot.servers = servers
      bot.serversUpdatedAt = new Date(now)
    }
    return { status: 200, json: { success: true } }
  }

  private publicRecord(id: string): Answer {
    const bot = this.bots.get(id)
    if (bot === undefined) return error(404, 'Bot not found.')
    if (!bot.verified) return error(403, 'This bot is not verified yet.')
    return {
      status: 200,
      json: {
        id: bot.id,
        username: 'Example Bot',
        short_description: 'A bot used in tests.',
        commands: bot.commands,
        commands_updated_at: bot.commandsUpdatedAt.toISOString(),
        servers: bot.servers,
        servers_updated_at: bot.serversUpdatedAt.toISOString(),
        votes: Object.values(bot.voters).reduce((sum, v) => sum + v.vote, 0),
        verified: bot.verified
      }
    }
  }

  private voteStatus(id: string, userId: string, req: http.IncomingMessage): Answer {
    const key = req.headers['authorization']
    if (key === undefined || key === '') return error(401, 'Authorization header is required.')
    const bot = this.bots.get(id)
    if (bot === undefined) return error(404, 'Bot not found.')
    if (key !== bot.apiKey) return error(401, bot.revokedKeys.has(key) ? 'This API key has been revoked.' : 'Invalid API key.')
    const entry = bot.voters[userId]
    const voted = entry?.lastVote != null && this.now() - entry.lastVote.getTime() < 24 * 60 * 60 * 1000
    // The original description answers a vote with 204 and leaves "not voted" unsaid; the
    // live service answers both with 200 JSON. The no-content style mixes the two.
    if (this.voteStyle === 'no-content' && voted) return { status: 204 }
    return { status: 200, json: { voted, vote: entry?.vote ?? 0, lastVote: entry?.lastVote?.getTime() ?? null } }
  }
}

type Handler = (req: http.IncomingMessage, body: string) => Answer

const error = serviceError

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
}
