import { ActionError } from '../errors.js'
import { type HttpAnswer, NetworkError } from '../http/transport.js'
import { type Policy, READ_DEFAULTS, SERVER_ERRORS, type Requests } from '../http/client.js'
import { excerpt } from '../text.js'
import { ACTION_VERSION, PROJECT_URL } from '../version.js'
import { type CommandCount, countCommands } from './commands.js'
import type { CountDeps, CountInputs, Counts } from './outcome.js'
import { SERVER_COUNT_MAX } from '../limits.js'

/** How Discord's API is read: 429s and 5xx retried (after their Retry-After), answers kept up to their size. */
export const DISCORD_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: "Discord's API",
  attempts: 4,
  retryStatuses: [429, ...SERVER_ERRORS],
  maxBodyBytes: 4 * 1024 * 1024
}

export interface DiscordPlan {
  /** Discord's API base address, without a trailing slash. */
  readonly apiUrl: string
  readonly token: string
  readonly needServers: boolean
  readonly needCommands: boolean
  readonly countSubcommands: boolean
}

export interface DiscordCounts {
  readonly servers: number | undefined
  readonly commands: CommandCount | undefined
}

/** Fills in the counts still missing from Discord (counts.ts decides whether any is). */
export async function fillFromDiscord(inputs: CountInputs, counts: Counts, deps: CountDeps): Promise<Counts> {
  if (inputs.discordToken === undefined) return counts
  const { command, server } = counts
  deps.log(`Reading ${[server ? '' : 'the server count', command ? '' : 'the command count'].filter(Boolean).join(' and ')} from Discord.`)
  const discord = await readDiscordCounts(
    {
      apiUrl: inputs.discordApiUrl,
      token: inputs.discordToken,
      needServers: server === undefined,
      needCommands: command === undefined,
      countSubcommands: inputs.countSubcommands
    },
    deps.requests
  ).catch((error: unknown) => {
    if (error instanceof ActionError) error.headline ??= 'Discord counts unreadable'
    throw error
  })
  return {
    command: command ?? (discord.commands && { value: discord.commands.count, source: 'Discord (global commands)', read: true }),
    server:
      server ??
      (discord.servers === undefined ? undefined : { value: discord.servers, source: 'Discord (approximate_guild_count)', read: true }),
    warnings: [...counts.warnings, ...(discord.commands?.warnings ?? [])]
  }
}

/**
 * Reads what the listing needs from Discord: the server count from `/applications/@me`
 * (`approximate_guild_count`, the figure the service checks server counts against), and
 * the command count from the application's global commands. Only the calls needed.
 */
export async function readDiscordCounts(plan: DiscordPlan, requests: Requests): Promise<DiscordCounts> {
  const application = await discordGet(plan, '/applications/@me', requests)
  const app = (typeof application === 'object' && application !== null ? application : {}) as Record<string, unknown>
  let servers: number | undefined
  if (plan.needServers) {
    const count = app['approximate_guild_count']
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
      throw new ActionError(
        "Discord's /applications/@me answer has no approximate_guild_count; the server count cannot be read from Discord."
      )
    }
    // Checked like the input: the service refuses more with a 400, so nothing is sent.
    if (count > SERVER_COUNT_MAX) {
      throw new ActionError(
        `Discord reports an approximate_guild_count of ${count}, above the service's maximum server count of ${SERVER_COUNT_MAX}; ` +
          'nothing was sent. Set server-count to send a count yourself.'
      )
    }
    servers = count
  }
  let commands: CommandCount | undefined
  if (plan.needCommands) {
    const id = app['id']
    if (typeof id !== 'string' || !/^\d{17,20}$/.test(id)) {
      throw new ActionError("Discord's /applications/@me answer has no application id; the commands cannot be read from Discord.")
    }
    const list = await discordGet(plan, `/applications/${id}/commands`, requests)
    if (!Array.isArray(list)) throw new ActionError("Discord's list of global commands was not a JSON array.")
    const origin = "Discord's global commands"
    commands = countCommands({ origin, entries: list.map((value, i) => ({ label: `[${i}]`, value })) }, plan.countSubcommands)
  }
  return { servers, commands }
}

async function discordGet(plan: DiscordPlan, path: string, requests: Requests): Promise<unknown> {
  let answer: HttpAnswer
  try {
    answer = await requests.send(
      {
        method: 'GET',
        url: `${plan.apiUrl}${path}`,
        headers: {
          Authorization: `Bot ${plan.token}`,
          Accept: 'application/json',
          // The form Discord requires of bots' HTTP clients.
          'User-Agent': `DiscordBot (${PROJECT_URL}, ${ACTION_VERSION})`
        }
      },
      DISCORD_POLICY,
      { refuse: refuseBan }
    )
  } catch (error) {
    if (error instanceof NetworkError) {
      throw new ActionError(`Could not read counts from Discord: ${error.message}.`, { cause: error, headline: 'Discord unreachable' })
    }
    throw error
  }
  if (answer.status === 200 && answer.json !== undefined) return answer.json
  const refused = answer.status === 401 || answer.status === 403
  throw new ActionError(explainDiscordFailure(answer, path), { headline: refused ? 'Discord token refused' : undefined })
}

/**
 * A 429 without Discord's rate-limit headers comes from Cloudflare, not from a rate limit:
 * the runner's IP address is banned for a while, and retrying makes it longer.
 */
function refuseBan(answer: HttpAnswer): Error | undefined {
  if (answer.status !== 429) return undefined
  const limited = Object.keys(answer.headers).some(h => h.startsWith('x-ratelimit-') || h === 'retry-after')
  if (limited) return undefined
  return new ActionError(
    "Discord refused the request with a 429 that carries no rate-limit headers: the runner's IP address is " +
      'temporarily banned by Discord (common on shared runners). It was not retried; run again later, or give the ' +
      'counts as inputs for now.',
    { headline: 'Discord rate limit (IP ban)' }
  )
}

function explainDiscordFailure(answer: HttpAnswer, path: string): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message
  const said = `Discord answered ${answer.status} to GET ${path}${typeof message === 'string' ? ` ("${excerpt(message)}")` : ''}`
  if (answer.status === 401 || answer.status === 403) {
    return (
      `${said}: the discord-token is invalid. Store the bot's token from the Bot page of the Discord Developer ` +
      'Portal in the secret (reset it there if it was leaked). Nothing was sent to the service.'
    )
  }
  if (answer.status === 429)
    return `${said}: rate limited for longer than the action waits. Nothing was sent to the service; run again later.`
  if (answer.status >= 500)
    return `${said} after ${DISCORD_POLICY.attempts} tries. Nothing was sent to the service; the next run will try again.`
  return `${said}. Nothing was sent to the service; check discord-api-url.`
}
