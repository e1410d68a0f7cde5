import type { Deps } from '../http/client.js'
import { ActionError } from '../errors.js'
import type { CountInputs, Counts, ResolvedCount } from './outcome.js'
import type { PublicRecord } from './window.js'

/**
 * The counts known before any request to the service: the inputs, then the command manifest (read
 * first, so a bad one fails before anything is sent; its module is loaded only when a run uses it).
 */
export async function localCounts(inputs: CountInputs, deps: Deps): Promise<Counts> {
  const fromInput = (value: number | undefined, input: string): ResolvedCount | undefined =>
    value === undefined ? undefined : { value, source: `input ${input}`, read: false }
  const command = fromInput(inputs.commandCount, 'command-count')
  const server = fromInput(inputs.serverCount, 'server-count')
  const file = inputs.commandsFile
  if (command !== undefined || file === undefined) return { command, server, warnings: [] }
  const { manifestCount } = await import('./manifest.js')
  const manifest = await manifestCount(file, inputs, deps).catch((error: unknown) => {
    if (error instanceof ActionError) error.headline ??= 'commands-file rejected'
    throw error
  })
  const source = `commands-file ${file.given}${manifest.readFrom === 'repository' ? ' (from the repository)' : ''}`
  return {
    command: { value: manifest.count, source, read: true },
    server,
    warnings: manifest.warnings
  }
}

/** Count inputs with a discord-token: what Discord is read with. */
export type DiscordInputs = CountInputs & { readonly discordToken: string }

/** Whether Discord has a count to fill in: a count is missing, and a token is given to read it. */
export function needsDiscord(inputs: CountInputs, counts: Counts): inputs is DiscordInputs {
  return (
    inputs.discordToken !== undefined &&
    (counts.command === undefined || counts.server === undefined)
  )
}

/**
 * Fills in from Discord what needsDiscord found missing: only for an update that will be sent, so a
 * skip never depends on Discord.
 */
export async function withDiscordCounts(
  inputs: DiscordInputs,
  counts: Counts,
  deps: Deps
): Promise<Counts> {
  const { fillFromDiscord } = await import('./discord.js')
  return fillFromDiscord(inputs, inputs.discordToken, counts, deps)
}

/**
 * Leaves out a command count of 0 that a source read while the listing shows commands (or is
 * unknown): a bot with per-server commands has no global ones, a manifest listing none is a failed
 * build step, and either would erase the listing's count. A `command-count: 0` input is the user's
 * own word and is kept.
 */
export function withoutErasure(counts: Counts, listing: PublicRecord | undefined): Counts {
  const { command } = counts
  const listed = listing?.commands
  if (command === undefined || !command.read || command.value !== 0 || listed === 0) return counts
  const shown =
    listed === undefined
      ? "the listing's count could not be read to compare"
      : `the listing shows ${listed}`
  const fix = command.source.startsWith('Discord')
    ? 'A bot that registers its commands per server has no global commands: set commands-file to the manifest your ' +
      'deploy script sends, to count those.'
    : 'A manifest that lists none usually means the wrong file or a build step that did not run: check the path and the build.'
  const warning =
    `The command count was left out: ${command.source} found no commands, and ${shown}; sending 0 would erase the ` +
    `count on the listing. ${fix} (command-count: 0 sends zero on purpose.)`
  return { command: undefined, server: counts.server, warnings: [...counts.warnings, warning] }
}
