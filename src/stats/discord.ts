import { ActionError } from '../errors.js'
import { type HttpAnswer, NetworkError } from '../http/transport.js'
import {
  type Policy,
  READ_DEFAULTS,
  SERVER_ERRORS,
  type Requests,
  type Deps
} from '../http/client.js'
import { excerpt } from '../text.js'
import { ACTION_VERSION, PROJECT_URL } from '../version.js'
import { countCommands } from './commands.js'
import type { CountInputs, Counts } from './outcome.js'
import { SERVER_COUNT_MAX } from '../limits.js'

/**
 * How Discord's API is read: 429s and 5xx retried (after their Retry-After), answers kept up to
 * their size.
 */
export const DISCORD_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: "Discord's API",
  attempts: 4,
  retryStatuses: [429, ...SERVER_ERRORS],
  maxBodyBytes: 4 * 1024 * 1024
}

/**
 * Fills in the counts still missing (counts.ts decides whether any is) from Discord, read with the
 * bot's `token`, with only the calls needed: the server count from `/applications/@me`
 * (`approximate_guild_count`, the figure the service checks server counts against), the command
 * count from the global commands.
 */
export async function fillFromDiscord(
  inputs: CountInputs,
  token: string,
  counts: Counts,
  deps: Deps
): Promise<Counts> {
  let { command, server, warnings } = counts
  deps.log(
    `Reading ${[server ? '' : 'the server count', command ? '' : 'the command count'].filter(Boolean).join(' and ')} from Discord.`
  )
  const get = (path: string): Promise<unknown> =>
    discordGet(`${inputs.discordApiUrl}${path}`, path, token, deps.requests)
  try {
    // One call serves both counts: it holds the server count, and the application ID that the
    // route of the global commands needs.
    const app = ((await get('/applications/@me')) ?? {}) as Record<string, unknown>
    if (server === undefined) {
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
      server = { value: count, source: 'Discord (approximate_guild_count)', read: true }
    }
    if (command === undefined) {
      const id = app['id']
      if (typeof id !== 'string' || !/^\d{17,20}$/.test(id)) {
        throw new ActionError(
          "Discord's /applications/@me answer has no application id; the commands cannot be read from Discord."
        )
      }
      const list = await get(`/applications/${id}/commands`)
      if (!Array.isArray(list))
        throw new ActionError("Discord's list of global commands was not a JSON array.")
      const entries = list.map((value, i) => ({ label: `[${i}]`, value }))
      const commands = countCommands(
        { origin: "Discord's global commands", entries },
        inputs.countSubcommands
      )
      command = { value: commands.count, source: 'Discord (global commands)', read: true }
      warnings = [...warnings, ...commands.warnings]
    }
  } catch (error) {
    if (error instanceof ActionError) error.headline ??= 'Discord counts unreadable'
    throw error
  }
  return { command, server, warnings }
}

async function discordGet(
  url: string,
  path: string,
  token: string,
  requests: Requests
): Promise<unknown> {
  // The User-Agent is in the form Discord requires of bots' HTTP clients.
  const headers = {
    Authorization: `Bot ${token}`,
    Accept: 'application/json',
    'User-Agent': `DiscordBot (${PROJECT_URL}, ${ACTION_VERSION})`
  }
  const answer = await requests
    .send({ method: 'GET', url, headers }, DISCORD_POLICY, { refuse: refuseBan })
    .catch((error: unknown) => {
      if (error instanceof NetworkError) {
        throw new ActionError(`Could not read counts from Discord: ${error.message}.`, {
          cause: error,
          headline: 'Discord unreachable'
        })
      }
      throw error
    })
  if (answer.status === 200 && answer.json !== undefined) return answer.json
  const message = (answer.json as { message?: unknown } | undefined)?.message
  const said = `Discord answered ${answer.status} to GET ${path}${typeof message === 'string' ? ` ("${excerpt(message)}")` : ''}`
  if (answer.status === 401 || answer.status === 403) {
    throw new ActionError(
      `${said}: the discord-token is invalid. Store the bot's token from the Bot page of the Discord Developer ` +
        'Portal in the secret (reset it there if it was leaked). Nothing was sent to the service.',
      { headline: 'Discord token refused' }
    )
  }
  if (answer.status === 429)
    throw new ActionError(
      `${said}: rate limited for longer than the action waits. Nothing was sent to the service; run again later.`
    )
  if (answer.status >= 500)
    throw new ActionError(
      `${said} after ${DISCORD_POLICY.attempts} tries. Nothing was sent to the service; the next run will try again.`
    )
  throw new ActionError(`${said}. Nothing was sent to the service; check discord-api-url.`)
}

/**
 * A 429 without Discord's rate-limit headers comes from Cloudflare, not from a rate limit:
 * the runner's IP address is banned for a while, and retrying makes it longer.
 */
function refuseBan(answer: HttpAnswer): Error | undefined {
  if (
    answer.status !== 429 ||
    Object.keys(answer.headers).some(h => h.startsWith('x-ratelimit-') || h === 'retry-after')
  )
    return undefined
  return new ActionError(
    "Discord refused the request with a 429 that carries no rate-limit headers: the runner's IP address is " +
      'temporarily banned by Discord (common on shared runners). It was not retried; run again later, or give the ' +
      'counts as inputs for now.',
    { headline: 'Discord rate limit (IP ban)' }
  )
}
