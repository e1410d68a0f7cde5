import type { Requests } from '../requests.js'
import type { StatsSettings } from '../settings.js'

/** A count and where it came from, so the log and the summary can say so. */
export interface ResolvedCount {
  readonly value: number
  /** Human-readable origin, e.g. "input command-count", "commands-file commands.json", "Discord". */
  readonly source: string
}

export interface Counts {
  readonly command: ResolvedCount | undefined
  readonly server: ResolvedCount | undefined
  /** Things the log should warn about, e.g. duplicate commands counted once. */
  readonly warnings: readonly string[]
}

/** What resolving the counts needs from the settings. */
export type CountInputs = Pick<
  StatsSettings,
  'commandCount' | 'serverCount' | 'commandsFile' | 'countSubcommands' | 'discordToken' | 'discordApiUrl' | 'github'
>

export interface CountDeps {
  readonly requests: Requests
  readonly log: (line: string) => void
}

/**
 * Decides each count and records its source. Precedence: an explicit input, then the
 * command manifest, then Discord's API. The manifest and Discord modules are loaded only
 * when a run uses them, so a run from inputs starts without them.
 */
export async function resolveCounts(inputs: CountInputs, deps: CountDeps): Promise<Counts> {
  const warnings: string[] = []
  let command = fromInput(inputs.commandCount, 'command-count')
  const server = fromInput(inputs.serverCount, 'server-count')

  if (command === undefined && inputs.commandsFile !== undefined) {
    const manifest = await readManifest(inputs, deps)
    command = {
      value: manifest.count,
      source: `commands-file ${inputs.commandsFile.given}${manifest.readFrom === 'repository' ? ' (from the repository)' : ''}`
    }
    warnings.push(...manifest.warnings)
  }

  if (inputs.discordToken !== undefined) {
    if (command !== undefined && server !== undefined) {
      deps.log('Both counts are resolved, so Discord is not asked (discord-token unused).')
      return { command, server, warnings }
    }
    const { readDiscordCounts } = await import('./discord.js')
    deps.log(
      `Reading ${[server ? '' : 'the server count', command ? '' : 'the command count'].filter(Boolean).join(' and ')} from Discord.`
    )
    const discord = await readDiscordCounts(
      {
        apiUrl: inputs.discordApiUrl,
        token: inputs.discordToken,
        needServers: server === undefined,
        needCommands: command === undefined,
        countSubcommands: inputs.countSubcommands
      },
      deps.requests
    )
    warnings.push(...(discord.commands?.warnings ?? []))
    return {
      command: command ?? (discord.commands && { value: discord.commands.count, source: 'Discord (global commands)' }),
      server:
        server ?? (discord.servers === undefined ? undefined : { value: discord.servers, source: 'Discord (approximate_guild_count)' }),
      warnings
    }
  }
  return { command, server, warnings }
}

async function readManifest(inputs: CountInputs, deps: CountDeps) {
  const file = inputs.commandsFile!
  const { countManifest } = await import('./manifest.js')
  const { token, repository, sha, workspace } = inputs.github
  const canFallBack = token !== undefined && repository !== undefined && sha !== undefined
  deps.log(`Counting the commands in ${file.path}.`)
  return countManifest({
    given: file.given,
    path: file.path,
    countSubcommands: inputs.countSubcommands,
    workspace,
    repositoryLabel: canFallBack ? `${repository} at ${sha.slice(0, 12)}` : undefined,
    fromRepository: canFallBack
      ? async path => {
          deps.log(
            `commands-file ${file.given} is not in the workspace; reading it from ${repository} at ${sha.slice(0, 12)} through the GitHub API.`
          )
          const { readRepositoryFile } = await import('./github.js')
          return readRepositoryFile({ token, repository, ref: sha, path }, deps.requests)
        }
      : undefined
  })
}

function fromInput(value: number | undefined, input: string): ResolvedCount | undefined {
  return value === undefined ? undefined : { value, source: `input ${input}` }
}
