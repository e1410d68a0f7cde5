/**
 * The architecture's own rules (ARCHITECTURE: "two modes, one direction"), read from the source:
 * the data flows one way, the HTTP client knows no caller by name, and only settings.ts reads
 * inputs. A broken rule names the file and the import that breaks it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'

const SRC = join(ROOT, 'src')

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []
  )
}

/** Every module a file imports (static or dynamic), as a path relative to src/. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const found = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map(match => match[1]!)
  return found.map(path =>
    relative(SRC, join(file, '..', path))
      .replace(/\\/g, '/')
      .replace(/\.js$/, '.ts')
  )
}

const rel = (file: string): string => relative(SRC, file).replace(/\\/g, '/')

describe('the rules of the house', () => {
  it('http/ imports nothing outside itself but errors.ts: the client and the transport know no caller', () => {
    const broken = sources(join(SRC, 'http')).flatMap(file =>
      imports(file)
        .filter(target => !target.startsWith('http/') && target !== 'errors.ts')
        .map(target => `${rel(file)} imports ${target}`)
    )
    expect(broken).toEqual([])
  })

  it('http/client.ts names no request of a caller: each caller owns its policy', () => {
    const client = readFileSync(join(SRC, 'http/client.ts'), 'utf8')
    expect(client).not.toMatch(/POLICIES|name: ['"]/)
  })

  it('settings.ts imports neither mode: what both read lives at the top (limits.ts)', () => {
    expect(imports(join(SRC, 'settings.ts')).filter(target => /^(stats|votes)\//.test(target))).toEqual([])
  })

  it('the modes do not import each other', () => {
    const broken = sources().flatMap(file => {
      const own = rel(file).split('/')[0]
      return imports(file)
        .filter(target => (own === 'stats' && target.startsWith('votes/')) || (own === 'votes' && target.startsWith('stats/')))
        .map(target => `${rel(file)} imports ${target}`)
    })
    expect(broken).toEqual([])
  })

  it('imports run one way: no cycle in src/, type-only and dynamic imports included', () => {
    const graph = new Map(sources().map(file => [rel(file), imports(file)]))
    const cycles: string[] = []
    const done = new Set<string>()
    const visit = (module: string, path: string[]): void => {
      if (path.includes(module)) {
        cycles.push([...path.slice(path.indexOf(module)), module].join(' -> '))
        return
      }
      if (done.has(module)) return
      for (const target of graph.get(module) ?? []) visit(target, [...path, module])
      done.add(module)
    }
    for (const module of graph.keys()) visit(module, [])
    expect(cycles).toEqual([])
  })

  it('only settings.ts reads inputs', () => {
    const readers = sources().filter(file => /\bcore\.getInput|\bgetBooleanInput|\bgetMultilineInput/.test(readFileSync(file, 'utf8')))
    expect(readers.map(rel)).toEqual(['settings.ts'])
  })
})
