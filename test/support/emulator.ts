/**
 * A loopback emulator of the bot listing service. It answers as the live service does,
 * point by point as test/fixtures/service/service-behaviour.md writes it down (taken from
 * the service's own route code), and otherwise as its OpenAPI document
 * (test/fixtures/service/discord-place-openapi.json) says:
 * - every answer of a limited route carries `RateLimit-Policy`, `-Limit`, `-Remaining` and
 *   `-Reset`, describing the request limiter only;
 * - `PATCH /bots/{id}/stats` checks, first match wins: the request limiter (2 counted
 *   requests per 30 minutes per bot, only answers below 400 counted; 429 with `Retry-After`
 *   and `retry_after`, no strike), the body, the key (401/404/410), the 6-hour rule (429
 *   without `Retry-After`, a strike; the 5th strike within 6 hours revokes the key: 410),
 *   the server count against Discord's (500 when Discord fails, 400 past max(50, 10%));
 * - the public record `GET /bots/{id}` (no key), 403 while the bot is unverified, limited
 *   to 10 reads per minute per client IP (429, `Retry-After`: the seconds left in the window);
 * - vote checks answering `200 {"voted","vote","lastVote"}` (or `204` in the style of the
 *   original description), limited to 100 per 5 minutes per bot, answers below 400 counted
 *   (429, `Retry-After`: the seconds left in the window);
 * - keys: a key is revoked only at the fifth strike within 6 hours (410 on every later use,
 *   even after a new key was generated); a key regenerated or deleted on the manage page is
 *   simply no longer the bot's (401);
 * - HTTP keep-alive on (`Keep-Alive: timeout=5`).
 * It records every request, and the strikes it counted, so tests assert what the service
 * received and what it cost the key.
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
  /**
   * When the bot was submitted; default 30 days ago. The live service stamps the command count's
   * update time with it (service-behaviour.md), so a bot submitted moments ago refuses its first
   * update within 6 hours with a strike.
   */
  createdAt?: Date
  /** When the counts were last updated; the command count defaults to `createdAt`, the server count to long ago. */
  commandsUpdatedAt?: Date
  serversUpdatedAt?: Date
  /** The count Discord reports, that the server count is checked against; default `servers`. */
  realServerCount?: number
  /** The service cannot get the bot's server count from Discord (500, nothing stored). */
  discordDown?: boolean
  /** Strikes already counted within the window (times of refused early updates). */
  strikes?: Date[]
  /** Vote state per user ID. */
  voters?: Record<string, { vote: number; lastVote: Date | null }>
  /**
   * Keys revoked earlier for strikes (the only way a key is ever revoked): the service answers
   * them 410 "This API key has been revoked." on every later use, even after a new key was generated.
   */
  revokedKeys?: string[]
  /** The service cannot tell the bot's server count (its internal answer has none): any count in range passes. */
  serverCountUnknown?: boolean
}

interface BotState {
  id: string
  /** Undefined when the bot has no key (deleted, or revoked at the fifth strike). */
  apiKey: string | undefined
  revokedKeys: Set<string>
  verified: boolean
  commands: number
  servers: number
  commandsUpdatedAt: Date
  serversUpdatedAt: Date
  realServerCount: number
  discordDown: boolean
  serverCountUnknown: boolean
  strikes: Date[]
  voters: Record<string, { vote: number; lastVote: Date | null }>
}

export interface RateWindow {
  route: RouteKind
  /** Whose window: the bot's ID, or the client's address for the record. */
  key: string
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
  /** Each request is handled this long after it arrived, as over the internet (default 0). */
  latencyMs?: number
}

export type { Fault } from './server.js'
export type RecordedRequest = ServerRequest<RouteKind>

/** A JSON answer, once, in place of the emulator's own. */
export function jsonFault(status: number, body: unknown, headers: Record<string, string> = {}): Fault {
  return { kind: 'answer', status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

/** The request limiter's 429 as the service sends it, once: `fields` beside its own (a `retry_after`), and these headers. */
export function limiterFault(fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): Fault {
  return jsonFault(429, { success: false, error: 'Too many requests, please try again later.', status: 429, ...fields }, headers)
}

/** The 6-hour refusal as the service sends it, once: no Retry-After, no retry_after (service-behaviour.md). */
export const SIX_HOUR_REFUSAL: Fault = jsonFault(429, {
  success: false,
  error: 'You can only update stats once every 6 hours.',
  status: 429
})

/** A bot's public record, once, last updated at `at` (both counts), with these headers (an `Age`, a `Date`). */
export function recordFault(id: string, at: Date, headers: Record<string, string> = {}): Fault {
  const time = at.toISOString()
  return jsonFault(200, { id, commands: 12, commands_updated_at: time, servers: 1204, servers_updated_at: time }, headers)
}

/** The live service's limiters (service-behaviour.md). */
export const LIVE_LIMITS: Readonly<Record<RouteKind, RateLimit>> = {
  stats: { limit: 2, windowMs: 30 * 60_000 },
  record: { limit: 10, windowMs: 60_000 },
  votes: { limit: 100, windowMs: 5 * 60_000 }
}

/**
 * How each limiter counts: the stats limiter is per bot and counts only answers below 400;
 * the record limiter is per client IP and counts every request; the vote limiter is per bot
 * (one budget for every client of the key) and counts its 200s, not 401/404/410. Each asks
 * for the seconds left in its window (at least 1), not a constant.
 */
const LIMITER_RULES: Record<RouteKind, { per: 'bot' | 'ip'; onlyBelow400: boolean }> = {
  stats: { per: 'bot', onlyBelow400: true },
  record: { per: 'ip', onlyBelow400: false },
  votes: { per: 'bot', onlyBelow400: true }
}

export class ServiceEmulator {
  private readonly bots = new Map<string, BotState>()
  private readonly windows = new Map<string, RateWindow>()
  /** Every rate-limit window opened, with the requests it counted and the 429s it answered. */
  readonly windowLog: RateWindow[] = []
  private readonly server: FakeServer<RouteKind>
  private readonly prefix: string
  private readonly limits: Record<RouteKind, RateLimit>
  private readonly now: () => number
  private readonly voteStyle: 'json' | 'no-content'

  private constructor(options: EmulatorOptions) {
    this.prefix = (options.prefix ?? '').replace(/\/+$/, '')
    this.limits = { ...LIVE_LIMITS, ...options.rateLimits }
    this.now = options.now ?? Date.now
    this.voteStyle = options.voteStyle ?? 'json'
    for (const seed of options.bots ?? []) this.addBot(seed)
    this.server = new FakeServer<RouteKind>((method, path) => this.route(method, path), options.tls, options.latencyMs)
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
      revokedKeys: new Set(seed.revokedKeys ?? []),
      verified: seed.verified ?? true,
      commands: seed.commands ?? 0,
      servers: seed.servers ?? 0,
      commandsUpdatedAt: seed.commandsUpdatedAt ?? seed.createdAt ?? longAgo,
      serversUpdatedAt: seed.serversUpdatedAt ?? longAgo,
      realServerCount: seed.realServerCount ?? seed.servers ?? 0,
      discordDown: seed.discordDown ?? false,
      serverCountUnknown: seed.serverCountUnknown ?? false,
      strikes: [...(seed.strikes ?? [])],
      voters: { ...seed.voters }
    })
  }

  /**
   * Counts `count` requests in a limiter's current window, as other jobs (or earlier runs)
   * would have: `key` is the bot's ID for stats and votes, the client's address
   * (`127.0.0.1`) for the record. The live stats limiter can only fill up with successes,
   * which the 6-hour rule keeps apart, so tests reach its 429 this way.
   */
  spendLimit(route: RouteKind, key: string, count: number): void {
    const now = this.now()
    const id = `${route} ${key}`
    let window = this.windows.get(id)
    if (window === undefined || now - window.start >= this.limits[route].windowMs) {
      window = { route, key, start: now, count: 0, refused: 0 }
      this.windows.set(id, window)
      this.windowLog.push(window)
    }
    window.count += count
  }

  /**
   * The owner generates a new key on the manage page: it overwrites the old one, which is not
   * revoked but simply no longer the bot's (401 from then on).
   */
  regenerateKey(id: string, newKey: string): void {
    this.state(id).apiKey = newKey
  }

  /** The owner deletes the key on the manage page: the bot has no key, and the old one gets 401. */
  deleteKey(id: string): void {
    this.state(id).apiKey = undefined
  }

  private state(id: string): BotState {
    const bot = this.bots.get(id)
    if (bot === undefined) throw new Error(`no bot ${id}`)
    return bot
  }

  /** The bot's stored state, for assertions. */
  bot(id: string): Readonly<BotState> {
    return this.state(id)
  }

  private route(method: string, fullPath: string): ReturnType<Router<RouteKind>> {
    const path = fullPath.startsWith(this.prefix) ? fullPath.slice(this.prefix.length) : '\0'
    let m = /^\/bots\/([^/]+)\/stats$/.exec(path)
    if (m && method === 'PATCH') return this.limited('stats', m[1]!, (req, body) => this.updateStats(m![1]!, req, body))
    m = /^\/bots\/([^/]+)\/voters\/([^/]+)$/.exec(path)
    if (m && method === 'GET') return this.limited('votes', m[1]!, req => this.voteStatus(m![1]!, m![2]!, req))
    m = /^\/bots\/([^/]+)$/.exec(path)
    if (m && method === 'GET') return this.limited('record', m[1]!, () => this.publicRecord(m![1]!))
    return { route: 'other', reply: () => error(404, 'Not found.') }
  }

  /** The limiter runs first; only when it lets the request through does the route look at it. */
  private limited(route: RouteKind, botId: string, handler: Handler): ReturnType<Router<RouteKind>> {
    return {
      route,
      reply: (req, body, res) => {
        // The service's own clock (`now`), which tests may set apart from the runner's.
        res.setHeader('Date', new Date(this.now()).toUTCString())
        const key = LIMITER_RULES[route].per === 'bot' ? botId : (req.socket.remoteAddress ?? '')
        const { refused, window } = this.rateLimit(route, key, res)
        if (refused !== undefined) return refused
        const answer = handler(req, body)
        // The stats limiter counts only answers below 400: a refused update costs no request.
        if (LIMITER_RULES[route].onlyBelow400 && answer.status >= 400) {
          window.count -= 1
          res.setHeader('RateLimit-Remaining', String(Math.max(0, this.limits[route].limit - window.count)))
        }
        return answer
      }
    }
  }

  /** Fixed-window limiter per route and key, with the `RateLimit-*` headers on every answer. */
  private rateLimit(route: RouteKind, key: string, res: http.ServerResponse): { refused: Answer | undefined; window: RateWindow } {
    const { limit, windowMs } = this.limits[route]
    const now = this.now()
    const id = `${route} ${key}`
    let window = this.windows.get(id)
    if (window === undefined || now - window.start >= windowMs) {
      window = { route, key, start: now, count: 0, refused: 0 }
      this.windows.set(id, window)
      this.windowLog.push(window)
    }
    const reset = Math.max(0, Math.ceil((window.start + windowMs - now) / 1000))
    res.setHeader('RateLimit-Policy', `${limit};w=${Math.round(windowMs / 1000)}`)
    res.setHeader('RateLimit-Limit', String(limit))
    res.setHeader('RateLimit-Reset', String(reset))
    if (window.count >= limit) {
      window.refused += 1
      res.setHeader('RateLimit-Remaining', '0')
      const retryAfter = Math.max(1, reset)
      return {
        window,
        refused: {
          status: 429,
          headers: { 'Retry-After': String(retryAfter) },
          json: { success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: retryAfter }
        }
      }
    }
    window.count += 1
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - window.count)))
    return { refused: undefined, window }
  }

  private updateStats(id: string, req: http.IncomingMessage, raw: string): Answer {
    const type = String(req.headers['content-type'] ?? '')
    let body: unknown = {}
    if (/^application\/json\b/i.test(type)) {
      try {
        body = JSON.parse(raw)
      } catch {
        // The live service's JSON parser answers with its framework's HTML error page.
        return {
          status: 400,
          headers: { 'Content-Type': 'text/html; charset=utf-8' },
          text: '<!DOCTYPE html><html><body><pre>Bad Request</pre></body></html>'
        }
      }
    }
    const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>
    // Fields other than the two counts are ignored, and a count may come as a string of digits.
    const commands = fields['command_count']
    const servers = fields['server_count']
    if (commands === undefined && servers === undefined) {
      return error(400, 'One of the following fields is required: command_count, server_count.')
    }
    if (commands !== undefined && !isIntegerIn(commands, 0, 1000)) return error(400, 'Commands count must be between 0 and 1,000.')
    if (servers !== undefined && !isIntegerIn(servers, 0, 10_000_000)) return error(400, 'Server count must be between 0 and 10 Million.')

    const refused = this.keyRefusal(id, req)
    if (refused !== undefined) return refused
    const bot = this.state(id)

    const now = this.now()
    const last = Math.max(bot.commandsUpdatedAt.getTime(), bot.serversUpdatedAt.getTime())
    if (now - last < SIX_HOURS) {
      bot.strikes = bot.strikes.filter(t => now - t.getTime() < SIX_HOURS)
      bot.strikes.push(new Date(now))
      if (bot.strikes.length >= 5) {
        // Revoked and unset (the key check passed, so it had one): the bot has no key until the owner generates one.
        bot.revokedKeys.add(bot.apiKey!)
        bot.apiKey = undefined
        return error(410, 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.')
      }
      // No Retry-After and no retry_after: only the limiter's RateLimit-* headers.
      return error(429, 'You can only update stats once every 6 hours.')
    }
    if (servers !== undefined) {
      if (bot.discordDown) return error(500, 'Could not fetch server count.')
      // An internal answer without a count makes the comparison NaN, which lets any count through.
      const actual = bot.serverCountUnknown ? Number.NaN : bot.realServerCount
      const tolerance = Math.max(50, Math.floor(actual * 0.1))
      const provided = Number(servers)
      if (Math.abs(provided - actual) > tolerance) {
        return error(
          400,
          `The server count provided (${provided}) is too far off from the actual server count. ` +
            `It cannot differ by more than ${tolerance} from the actual server count, which is ${actual}.`
        )
      }
    }
    if (commands !== undefined) {
      bot.commands = Number(commands)
      bot.commandsUpdatedAt = new Date(now)
    }
    if (servers !== undefined) {
      bot.servers = Number(servers)
      bot.serversUpdatedAt = new Date(now)
    }
    return { status: 200, json: { success: true } }
  }

  /** The key check of both keyed routes, first match wins: the refusal, or undefined for the bot's current key. */
  private keyRefusal(id: string, req: http.IncomingMessage): Answer | undefined {
    const key = req.headers['authorization']
    if (key === undefined || key === '') return error(401, 'Authorization header is required.')
    const bot = this.bots.get(id)
    if (bot === undefined) return error(404, 'Bot not found.')
    if (bot.revokedKeys.has(key)) return error(410, 'This API key has been revoked.')
    if (bot.apiKey === undefined || key !== bot.apiKey) return error(401, 'Invalid API key.')
    return undefined
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
    const refused = this.keyRefusal(id, req)
    if (refused !== undefined) return refused
    const bot = this.state(id)
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

/** An integer in range; the live service also takes one written as a string of digits (`"12"`). */
function isIntegerIn(value: unknown, min: number, max: number): boolean {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  return typeof number === 'number' && Number.isInteger(number) && number >= min && number <= max
}
