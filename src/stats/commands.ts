import { ActionError } from '../errors.js'
import { COMMAND_COUNT_MAX } from '../limits.js'

/** Discord's application command types. An absent `type` means chat input (builders' v1 output). */
const COMMAND_TYPES: Record<number, string> = {
  1: 'chat input',
  2: 'user',
  3: 'message',
  4: 'entry point'
}
const SUB_COMMAND = 1
const SUB_COMMAND_GROUP = 2

export interface CommandCount {
  readonly count: number
  /** Warnings for the log, e.g. duplicates that were counted once. */
  readonly warnings: string[]
}

/**
 * A list of command objects and the name to use for it in messages (`commands`, `commands.json`).
 */
export interface CommandList {
  readonly entries: { readonly label: string; readonly value: unknown }[]
  readonly origin: string
}

/**
 * Counts each distinct command (type and name) once, or each leaf subcommand with
 * `countSubcommands`; throws at the first bad one.
 */
export function countCommands(list: CommandList, countSubcommands: boolean): CommandCount {
  const seen = new Map<string, { type: number; name: string; times: number }>()
  let count = 0
  for (const { label, value } of list.entries) {
    const { name, type, options } = checkCommand(value, label, list.origin)
    const key = `${type}:${name}`
    const times = (seen.get(key)?.times ?? 0) + 1
    seen.set(key, { type, name, times })
    if (times > 1) continue
    count +=
      countSubcommands && type === 1 ? Math.max(1, leafSubcommands(options, label, list.origin)) : 1
  }
  // One warning for all duplicates: a manifest built twice over would fill the annotations (ten per
  // step) with one per command.
  const duplicates = [...seen.values()]
    .filter(({ times }) => times > 1)
    .map(({ type, name, times }) => `the ${COMMAND_TYPES[type]} command "${name}" ${times} times`)
  const SHOWN = 20
  const more = duplicates.length > SHOWN ? `, and ${duplicates.length - SHOWN} more` : ''
  const warnings =
    duplicates.length === 0
      ? []
      : [
          `${list.origin} lists ${duplicates.slice(0, SHOWN).join(', ')}${more}; each was counted once.`
        ]
  if (count > COMMAND_COUNT_MAX) {
    throw new ActionError(
      `${list.origin} counts ${count} commands${countSubcommands ? ' (with subcommands)' : ''}, more than the ` +
        `service's maximum of ${COMMAND_COUNT_MAX}.${countSubcommands ? ' Set count-subcommands: false to count top-level commands.' : ''}`
    )
  }
  return { count, warnings }
}

function checkCommand(
  value: unknown,
  label: string,
  origin: string
): { name: string; type: number; options: unknown[] } {
  const where = `${origin}: ${label}`
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ActionError(`${where} is ${kind(value)}; expected a command object with a "name".`)
  }
  const fields = value as Record<string, unknown>
  if (!('name' in fields)) throw new ActionError(`${where} has no "name".`)
  if (typeof fields['name'] !== 'string' || fields['name'] === '') {
    throw new ActionError(
      `${where} has a "name" that is ${kind(fields['name'])}; expected a non-empty string.`
    )
  }
  const name = fields['name']
  const type = fields['type'] ?? 1
  if (typeof type !== 'number' || !(type in COMMAND_TYPES)) {
    throw new ActionError(
      `${where} ("${name}") has "type": ${quote(type)}; expected 1 (chat input), 2 (user), 3 (message) or 4 (entry point).`
    )
  }
  const options = fields['options'] ?? []
  if (!Array.isArray(options))
    throw new ActionError(
      `${where} ("${name}") has "options" that is ${kind(options)}; expected an array.`
    )
  return { name, type, options }
}

/**
 * Subcommands (type 1), directly or in groups (type 2): no deeper than Discord allows, whatever the
 * input's nesting.
 */
function leafSubcommands(options: unknown[], label: string, origin: string): number {
  let leaves = 0
  options.forEach((option, i) => {
    const type = optionType(option, `${label}.options[${i}]`, origin)
    if (type === SUB_COMMAND) leaves += 1
    if (type === SUB_COMMAND_GROUP) {
      const inner = (option as { options?: unknown }).options ?? []
      if (!Array.isArray(inner))
        throw new ActionError(
          `${origin}: ${label}.options[${i}] has "options" that is not an array.`
        )
      inner.forEach((sub, j) => {
        if (optionType(sub, `${label}.options[${i}].options[${j}]`, origin) === SUB_COMMAND)
          leaves += 1
      })
    }
  })
  return leaves
}

function optionType(option: unknown, label: string, origin: string): number {
  const type =
    typeof option === 'object' && option !== null ? (option as { type?: unknown }).type : undefined
  if (typeof type !== 'number' || !Number.isInteger(type)) {
    throw new ActionError(
      `${origin}: ${label} has no integer "type"; expected an application command option.`
    )
  }
  return type
}

/**
 * A number or a short string as written, else its kind: never JSON.stringify of a Discord answer,
 * which is not depth-checked.
 */
function quote(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'string')
    return value.length > 40
      ? `${JSON.stringify(value.slice(0, 40)).slice(0, -1)}…"`
      : JSON.stringify(value)
  return kind(value)
}

function kind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
