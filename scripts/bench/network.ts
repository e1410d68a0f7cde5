/**
 * The action over a network with latency: a local TLS service (the emulator) and Discord
 * (the fake), each behind a relay that delays every byte by half a round trip each way and
 * holds a new connection's first bytes for one more round trip, as a TCP handshake does.
 * Each scenario runs at 0 ms and at BENCH_RTT_MS (default 50), paired and alternated, on
 * Node 24; "network cost" is the median of the paired differences in wall time. The floor
 * is 2 handshake round trips (TCP, TLS 1.3) per host plus 1 per request, all on one
 * connection per host.
 */
import { readFileSync } from 'node:fs'
import * as net from 'node:net'
import { join } from 'node:path'
import { ROOT, runAction } from '../../test/support/action.js'
import { ServiceEmulator } from '../../test/support/emulator.js'
import { DiscordFake } from '../../test/support/fakes.js'
import { median, type Report } from './stats.js'

const TLS_DIR = join(ROOT, 'test/fixtures/tls')
const TLS = {
  key: readFileSync(join(TLS_DIR, 'server-key.pem'), 'utf8'),
  cert: readFileSync(join(TLS_DIR, 'server.pem'), 'utf8')
}
const KEY = 'bench-key'
/** A bot token's shape: its first part is the bot's ID in base64, as the action checks. */
const tokenOf = (bot: string): string =>
  `${Buffer.from(bot).toString('base64url')}.GxYzAb.bench-token_0123456789`
const END = Symbol('end')

/** A TCP relay to a loopback port, with a configurable round trip. */
class DelayRelay {
  rttMs = 0
  connections = 0
  private readonly server = net.createServer(client => this.relay(client))
  private readonly sockets = new Set<net.Socket>()

  constructor(private readonly target: number) {}

  async listen(): Promise<number> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    return (this.server.address() as net.AddressInfo).port
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }

  private relay(client: net.Socket): void {
    this.connections += 1
    const upstream = net.connect(this.target, '127.0.0.1')
    const oneWay = this.rttMs / 2
    // The client may send once its SYN-ACK is back: a round trip after it connected.
    const open = performance.now() + this.rttMs
    this.lane(client, upstream, at => Math.max(at, open) + oneWay)
    this.lane(upstream, client, at => at + oneWay)
  }

  /** Forwards from one socket to the other, each chunk at the time `due` gives, in order. */
  private lane(from: net.Socket, to: net.Socket, due: (at: number) => number): void {
    from.setNoDelay(true)
    this.sockets.add(from)
    const queue: { at: number; chunk: Buffer | typeof END }[] = []
    let timer: NodeJS.Timeout | undefined
    const flush = (): void => {
      timer = undefined
      while (queue.length > 0 && queue[0]!.at <= performance.now()) {
        const { chunk } = queue.shift()!
        if (chunk === END) to.end()
        else to.write(chunk)
      }
      if (queue.length > 0) timer = setTimeout(flush, Math.max(0, queue[0]!.at - performance.now()))
    }
    const push = (chunk: Buffer | typeof END): void => {
      queue.push({ at: due(performance.now()), chunk })
      timer ??= setTimeout(flush, Math.max(0, queue[0]!.at - performance.now()))
    }
    from.on('data', (chunk: Buffer) => push(chunk))
    from.on('end', () => push(END))
    from.on('error', () => to.destroy())
    from.on('close', () => {
      this.sockets.delete(from)
      if (queue.length === 0) to.destroy()
    })
  }
}

interface Scenario {
  label: string
  /** Round trips on the floor; undefined when the scenario has none. */
  floorRtts?: number
  inputs: (bot: string) => Record<string, string>
}

/** Runs the scenarios and prints connections and network cost against the floor. */
export async function networkBenchmark(node: string, report: Report): Promise<void> {
  const rtt = Number(process.env['BENCH_RTT_MS'] ?? 50)
  const runs = Math.max(1, Number(process.env['BENCH_NET_RUNS'] ?? 9))
  const users = [
    '223456789012345678',
    '323456789012345678',
    '423456789012345678',
    '523456789012345678',
    '623456789012345678'
  ]
  const unlimited = { limit: 1e9, windowMs: 60_000 }
  const emulator = await ServiceEmulator.start({
    tls: TLS,
    rateLimits: { stats: unlimited, record: unlimited, votes: unlimited }
  })
  const discord = await DiscordFake.start({
    token: tokenOf('123456789012345678'),
    applicationId: '123456789012345678',
    guildCount: 1250,
    commands: [{ name: 'ping' }],
    tls: TLS
  })
  const relays = { service: new DelayRelay(emulator.port), discord: new DelayRelay(discord.port) }
  const base = `https://127.0.0.1:${await relays.service.listen()}`
  const discordApi = `https://127.0.0.1:${await relays.discord.listen()}/api/v10`
  const scenarios: Scenario[] = [
    {
      label: 'stats with cooldown check (record + PATCH)',
      floorRtts: 4,
      inputs: () => ({ 'command-count': '42', 'server-count': '1250' })
    },
    {
      label: 'stats with Discord as a source (Discord calls + record + PATCH)',
      floorRtts: 8,
      inputs: bot => {
        discord.actAs(bot, tokenOf(bot))
        return { 'discord-token': tokenOf(bot), 'discord-api-url': discordApi }
      }
    },
    {
      label: `vote check, ${users.length} users`,
      inputs: () => ({ mode: 'vote-check', 'user-id': users.join(',') })
    }
  ]
  let nextBot = 800000000000000000n
  try {
    console.log(
      `\nOver a network: local TLS servers behind a relay adding ${rtt} ms per round trip, ${runs} paired runs on Node 24`
    )
    for (const scenario of scenarios) {
      const costs: number[] = []
      const connections = new Set<string>()
      for (let run = 0; run < runs; run++) {
        const walls: Record<number, number> = {}
        // Alternated, so that neither delay always runs first.
        for (const delay of run % 2 ? [rtt, 0] : [0, rtt]) {
          const bot = String(nextBot++)
          emulator.addBot({
            id: bot,
            apiKey: KEY,
            servers: 1200,
            realServerCount: 1250,
            voters: {}
          })
          relays.service.rttMs = relays.discord.rttMs = delay
          relays.service.connections = relays.discord.connections = 0
          const result = await runAction({
            node,
            inputs: { 'bot-id': bot, 'api-key': KEY, 'base-url': base, ...scenario.inputs(bot) },
            env: { NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'ca.pem') }
          })
          if (result.code !== 0)
            throw new Error(
              `${scenario.label}: the action failed\n${result.stdout}\n${result.stderr}`
            )
          walls[delay] = result.durationMs
          const discordPart =
            relays.discord.connections > 0 ? `, Discord ${relays.discord.connections}` : ''
          connections.add(`service ${relays.service.connections}${discordPart}`)
        }
        costs.push(walls[rtt]! - walls[0]!)
      }
      const cost = median(costs)
      const spread = `${Math.min(...costs).toFixed(0)}–${Math.max(...costs).toFixed(0)}`
      const seen = [...connections].join(' or ')
      if (scenario.floorRtts === undefined) {
        console.log(
          `  ${scenario.label}: connections ${seen}; network cost ${cost.toFixed(0)} ms (${spread})`
        )
        continue
      }
      const floor = scenario.floorRtts * rtt
      report(
        `${scenario.label}: connections ${seen}; network cost ${cost.toFixed(0)} ms (${spread}) = ${(cost / floor).toFixed(2)}x the round-trip floor of ${floor} ms`
      )
    }
  } finally {
    await Promise.all([relays.service.close(), relays.discord.close()])
    await Promise.all([emulator.close(), discord.close()])
  }
}
