import type { Deps } from '../http/client.js'
import { constants, type Stats } from 'node:fs'
import { type FileHandle, open, readdir, realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { ActionError } from '../errors.js'
import { excerpt } from '../text.js'
import { type CommandCount, type CommandList, countCommands } from './commands.js'
import type { CountInputs } from './outcome.js'

const NOT_FOUND = 'commands-file not found'
/** A manifest larger than this is not a command manifest. */
const MAX_MANIFEST_BYTES = 5 * 1024 * 1024

export interface ManifestPlan {
  /** The input as given, for messages, and the path resolved against the workspace. */
  readonly given: string
  readonly path: string
  readonly countSubcommands: boolean
  readonly workspace: string
  /** Reads the file's bytes from the repository; absent when that cannot be tried. */
  readonly fromRepository?: (pathInRepository: string) => Promise<Buffer>
  /** The repository for messages, e.g. "example/bot at 0123abc". */
  readonly repositoryLabel?: string
  /** In the project's reusable workflow, whose caller cannot add a checkout to the job. */
  readonly inReusableWorkflow?: boolean
}

export interface ManifestCount extends CommandCount {
  readonly readFrom: 'workspace' | 'repository'
}

/** The commands-file input: as given, and resolved against the workspace. */
type CommandsFile = NonNullable<CountInputs['commandsFile']>

/**
 * Counts the manifest that commands-file names, from the workspace or, failing that, the
 * repository.
 */
export async function manifestCount(
  file: CommandsFile,
  inputs: CountInputs,
  deps: Deps
): Promise<ManifestCount> {
  const { token, repository, sha, workspace, apiUrl, inReusableWorkflow } = inputs.github
  const canFallBack = token !== undefined && repository !== undefined && sha !== undefined
  const label = canFallBack ? `${repository} at ${sha.slice(0, 12)}` : undefined
  deps.log(`Counting the commands in ${file.path}.`)
  return countManifest({
    ...file,
    countSubcommands: inputs.countSubcommands,
    workspace,
    repositoryLabel: label,
    inReusableWorkflow,
    fromRepository: canFallBack
      ? async path => {
          deps.log(
            `commands-file ${file.given} is not in the workspace; reading it from ${label} through the GitHub API.`
          )
          const { readRepositoryFile } = await import('./github.js')
          return readRepositoryFile({ token, repository, ref: sha, path, apiUrl }, deps.requests)
        }
      : undefined
  })
}

const CHECKOUT = 'Add an actions/checkout step before this one'

/**
 * Reads a command manifest and counts it. The file comes from the workspace; when a scheduled
 * workflow has no checkout, from the repository at the run's commit.
 */
export async function countManifest(plan: ManifestPlan): Promise<ManifestCount> {
  const origin = `Input 'commands-file' (${plan.given})`
  const local = await readLocal(plan, origin)
  if (local !== undefined)
    return { ...countManifestText(local, origin, plan.countSubcommands), readFrom: 'workspace' }

  const inRepository = relative(plan.workspace, plan.path)
  const outside = isOutside(plan.workspace, plan.path)
  const notFound = `${origin}: no file at ${plan.path}`
  // A checked-out workspace holds the repository already: the file is missing because of a typo or
  // a build step that did not write it, and the repository would not have it either.
  if (!outside && (await isCheckedOut(plan.workspace))) {
    throw new ActionError(
      `${notFound}. The workspace is checked out; ${await nearestFolder(plan.workspace, plan.path)}. ` +
        'Check the path for a typo, and that the step that writes the file runs before this one.',
      { headline: NOT_FOUND }
    )
  }
  const fix = plan.inReusableWorkflow
    ? "This job is the reusable workflow's, which cannot check out and build your code: commit the manifest to the " +
      "repository (it is read at the run's commit), or run the action in a job of your own after actions/checkout and " +
      'the step that writes the file.'
    : `${CHECKOUT}, or grant the job \`permissions: contents: read\`.`
  if (plan.fromRepository === undefined || outside) {
    const why = outside
      ? 'the path is outside the workspace'
      : 'the repository and a github-token are needed'
    throw new ActionError(
      `${notFound}, and it could not be read from the repository (${why}). ${fix}`,
      { headline: NOT_FOUND }
    )
  }
  const bytes = await plan
    .fromRepository(inRepository.split('\\').join('/'))
    .catch((error: unknown) => {
      if (error instanceof ActionError) throw error
      const reason = error instanceof Error ? error.message : String(error)
      if ((error as { network?: unknown }).network === true) {
        throw new ActionError(
          `${notFound}, and GitHub's API could not be reached to read it from the repository (${reason}). ` +
            "Check the runner's network and proxy settings; the next run will try again.",
          { headline: 'GitHub unreachable' }
        )
      }
      // A redirect is not followed, so that the token never goes to another address; no
      // permission changes that, but a checkout reads the file from the workspace instead.
      const redirected = (error as { redirect?: unknown }).redirect === true
      const advice = redirected && !plan.inReusableWorkflow ? `${CHECKOUT}.` : fix
      throw new ActionError(
        `${notFound}, and reading ${inRepository} from ${plan.repositoryLabel ?? 'the repository'} through the GitHub API failed (${reason}). ${advice}`,
        { headline: NOT_FOUND }
      )
    })
  if (bytes.length > MAX_MANIFEST_BYTES) throw tooLarge(origin)
  return {
    ...countManifestText(decodeManifest(bytes, origin), origin, plan.countSubcommands),
    readFrom: 'repository'
  }
}

/**
 * The file's text, or undefined when there is no such file. The file is untrusted: it is read only
 * if it is a regular file inside the workspace once links are resolved (a link must not lead the
 * action to read, and quote, a file elsewhere on the runner), it is opened without blocking
 * (opening a FIFO would otherwise wait forever for a writer), and no more than the size limit is
 * ever read, whatever size the file claims.
 */
async function readLocal(plan: ManifestPlan, origin: string): Promise<string | undefined> {
  const real = await realpath(plan.path).catch(({ code }: NodeJS.ErrnoException) => {
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw cannotRead(origin, plan.path, code)
  })
  if (real === undefined) return undefined
  const workspace = await realpath(plan.workspace).catch(() => plan.workspace)
  if (isOutside(workspace, real)) {
    throw new ActionError(
      `${origin}: ${plan.path} resolves to ${real}, outside the workspace ${workspace}. ` +
        'Give the path of a file in the repository; a symbolic link may not point out of the workspace.'
    )
  }
  let handle: FileHandle | undefined
  try {
    handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
    const stats = await handle.stat()
    if (stats.isDirectory())
      throw new ActionError(
        `${origin}: ${plan.path} is a directory; give the path of the JSON file.`
      )
    if (!stats.isFile()) {
      throw new ActionError(
        `${origin}: ${plan.path} is not a regular file (${fileKind(stats)}); give the path of the JSON file.`
      )
    }
    const bytes = await readAtMost(handle, MAX_MANIFEST_BYTES + 1)
    if (bytes.length > MAX_MANIFEST_BYTES) throw tooLarge(origin)
    return decodeManifest(bytes, origin)
  } catch (error) {
    if (error instanceof ActionError) throw error
    throw cannotRead(origin, plan.path, (error as NodeJS.ErrnoException).code)
  } finally {
    await handle?.close()
  }
}

/**
 * Reads up to `limit` bytes: a file that grows while it is read cannot make the action read more.
 */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit)
  let length = 0
  while (length < limit) {
    const { bytesRead } = await handle.read(buffer, length, limit - length, null)
    if (bytesRead === 0) break
    length += bytesRead
  }
  return buffer.subarray(0, length)
}

/** Whether a checkout put the repository in the workspace: it then holds a `.git`. */
async function isCheckedOut(workspace: string): Promise<boolean> {
  return stat(join(workspace, '.git')).then(
    () => true,
    () => false
  )
}

/** The nearest folder of `path` that exists in the workspace, and what it holds (a few names). */
async function nearestFolder(workspace: string, path: string): Promise<string> {
  const SHOWN = 10
  for (let folder = dirname(path); !isOutside(workspace, folder); folder = dirname(folder)) {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => undefined)
    if (entries === undefined) continue
    const names = entries
      .filter(entry => entry.name !== '.git')
      .map(entry => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .sort()
    const label =
      folder === workspace
        ? 'the workspace root'
        : `${relative(workspace, folder).split('\\').join('/')}/`
    if (names.length === 0) return `the nearest existing folder, ${label}, is empty`
    const more = names.length > SHOWN ? ` and ${names.length - SHOWN} more` : ''
    return `the nearest existing folder, ${label}, holds ${names.slice(0, SHOWN).join(', ')}${more}`
  }
  return 'the workspace cannot be listed'
}

/** Whether `path` resolves outside `root`: `..generated/` is a folder's name, not a step up. */
function isOutside(root: string, path: string): boolean {
  const inside = relative(root, path)
  return /^\.\.(?:[\\/]|$)/.test(inside) || isAbsolute(inside)
}

/**
 * A manifest's bytes as text, as the tools people use write them: UTF-8, with or without a byte
 * order mark, and UTF-16 with one (Windows PowerShell 5.1's `>` and `Out-File` write UTF-16 LE with
 * a BOM). Anything else is refused, naming the encoding and the fix, rather than read as garbage
 * and quoted in an error.
 */
export function decodeManifest(bytes: Buffer, origin: string): string {
  const fix =
    'Write the file as UTF-8: in PowerShell, Out-File -Encoding utf8 or Set-Content -Encoding utf8 instead of >.'
  const refuse = (what: string): ActionError =>
    new ActionError(`${origin} ${what}, which is not read. ${fix}`, {
      headline: 'commands-file not UTF-8'
    })
  // The ASCII of JSON leaves three bytes in four zero in UTF-32, every other byte in UTF-16.
  const sample = bytes.subarray(0, 64)
  const zeros = sample.filter(byte => byte === 0).length
  // UTF-32 first: its little-endian byte order mark, FF FE 00 00, begins with UTF-16's.
  if (bytes.length >= 4 && (bytes.readUInt32LE(0) === 0xfeff || bytes.readUInt32BE(0) === 0xfeff))
    throw refuse('is UTF-32')
  if (sample.length >= 4 && zeros >= (sample.length * 3) / 4)
    throw refuse('looks like UTF-32 (three bytes in four are zero)')
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le')
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    // swap16 throws on an odd length: a last odd byte is dropped, as the little-endian decoding
    // drops it.
    const swapped = Buffer.from(bytes.subarray(2, bytes.length & ~1)).swap16()
    return swapped.toString('utf16le')
  }
  if (!bom && sample.length >= 4 && zeros >= sample.length / 4) {
    throw refuse('looks like UTF-16 without a byte order mark (every other byte is zero)')
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bom ? bytes.subarray(3) : bytes)
  } catch {
    throw new ActionError(
      `${origin} is not UTF-8 (a legacy code page such as Windows-1252, or a binary file?), so it is not read. ${fix}`,
      { headline: 'commands-file not UTF-8' }
    )
  }
}

function fileKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  if (stats.isSocket()) return 'a socket'
  return 'not a file'
}

function cannotRead(origin: string, path: string, code: string | undefined): ActionError {
  return new ActionError(
    `${origin}: ${path} cannot be read (${code ?? 'error'}). Check the path and the file's permissions.`
  )
}

function tooLarge(origin: string): ActionError {
  return new ActionError(
    `${origin} is larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MB, too large for a command manifest. Check the path.`
  )
}

/** Parses a manifest's text in any of the accepted shapes and counts its commands. */
export function countManifestText(
  text: string,
  origin: string,
  countSubcommands: boolean
): CommandCount {
  // A manifest that lists no commands is valid: whether its 0 is sent is withoutErasure's call
  // (counts.ts), made once the listing's count is known.
  const json = parseJson(text.replace(/^\uFEFF/, ''), origin)
  try {
    return countCommands(manifestEntries(json, origin), countSubcommands)
  } catch (error) {
    const cut = error instanceof ActionError ? powerShellCut(json) : undefined
    if (cut === undefined) throw error
    throw new ActionError(
      `${(error as ActionError).message} The manifest looks cut short by PowerShell's ConvertTo-Json, ` +
        `which writes objects deeper than its -Depth (2 by default) as text like ${excerpt(JSON.stringify(cut))}: add -Depth 20 to ConvertTo-Json.`,
      { headline: 'commands-file cut by ConvertTo-Json' }
    )
  }
}

/**
 * A string where ConvertTo-Json gave up at its depth limit (`@{name=…}`, `System.Object[]`), if the
 * JSON holds one.
 */
function powerShellCut(json: unknown, depth = 0): string | undefined {
  if (typeof json === 'string')
    return /^@\{.*\}$|^System\.(?:Object\[\]|Collections\.)/s.test(json)
      ? json.slice(0, 40)
      : undefined
  if (typeof json !== 'object' || json === null || depth > 20) return undefined
  for (const value of Object.values(json)) {
    const found = powerShellCut(value, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The accepted shapes, all seen in real projects: an array of command objects (what a deploy script
 * sends to Discord, or a saved GET of the commands); an object with a `commands` array; an object
 * keyed by command name whose values are command objects.
 */
function manifestEntries(json: unknown, origin: string): CommandList {
  const list = (items: unknown[], prefix = ''): CommandList => ({
    origin,
    entries: items.map((value, i) => ({ label: `${prefix}[${i}]`, value }))
  })
  if (Array.isArray(json)) return list(json)
  if (typeof json === 'object' && json !== null) {
    const fields = json as Record<string, unknown>
    if (Array.isArray(fields['commands'])) return list(fields['commands'], 'commands')
    const values = Object.entries(fields)
    if (
      values.every(
        ([, value]) => typeof value === 'object' && value !== null && !Array.isArray(value)
      )
    ) {
      return {
        origin,
        // A keyed entry may leave its name to the key.
        entries: values.map(([key, value]) => ({
          label: `[${excerpt(JSON.stringify(key))}]`,
          value: { name: key, ...(value as object) }
        }))
      }
    }
  }
  throw new ActionError(
    `${origin} holds ${unexpectedShape(json)}; ` +
      'expected a JSON array of commands, an object with a "commands" array, or an object keyed by command name.'
  )
}

/** What a manifest that is no accepted shape holds, in words (an array is always accepted). */
function unexpectedShape(json: unknown): string {
  if (json === null) return 'null'
  if (typeof json === 'object') return 'an object that is neither'
  return `a ${typeof json}`
}

/**
 * Nesting allowed in a manifest. A command manifest is about 12 levels deep at most (command,
 * group, subcommand, option, choice, localisations); far deeper text is not one, and nothing built
 * on it should have to walk that deep.
 */
const MAX_DEPTH = 100

/** JSON.parse, refusing nesting no manifest has before it is walked; a failure in Node's words. */
function parseJson(text: string, origin: string): unknown {
  const deep = tooDeepAt(text)
  if (deep !== undefined) {
    const before = text.slice(0, deep).split('\n')
    throw new ActionError(
      `${origin} is nested more than ${MAX_DEPTH} levels deep at line ${before.length}, column ${before.at(-1)!.length + 1}; a command manifest is about 12 levels deep. Check the path and the file.`
    )
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    // Node's message says where: a position (line and column on Node 24) or the text around a
    // token, escaped.
    throw new ActionError(
      `${origin} is not valid JSON: ${excerpt(error instanceof Error ? error.message : String(error), 200)}`
    )
  }
}

/**
 * The offset of the first `[` or `{` (outside strings) that opens more than MAX_DEPTH levels, if
 * any.
 */
function tooDeepAt(text: string): number | undefined {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 0x5c /* \ */) i++
      else if (char === 0x22 /* " */) inString = false
    } else if (char === 0x22) {
      inString = true
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (++depth > MAX_DEPTH) return i
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth--
    }
  }
  return undefined
}
