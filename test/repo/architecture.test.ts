/**
 * The architecture's own rules (ARCHITECTURE: "two modes, one direction"), read from the source:
 * the data flows one way, the HTTP client knows no caller by name, and only settings.ts reads
 * inputs. A broken rule names the file and the import that breaks it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'

const SRC = join(ROOT, 'src')
const read = (module: string): string => readFileSync(join(SRC, module), 'utf8')
/** Every module of src/, as a path relative to it. */
const MODULES = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter(name => name.endsWith('.ts'))
  .map(name => name.replaceAll('\\', '/'))
  .sort()

/**
 * Every module a module imports (static or dynamic, types included), as a path relative to src/.
 */
const imports = (module: string): string[] =>
  [...read(module).matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map(match =>
    posix.join(posix.dirname(module), match[1]!).replace(/\.js$/, '.ts')
  )
const GRAPH = new Map(MODULES.map(module => [module, imports(module)]))

describe('the rules of the house', () => {
  it.each([
    [
      'http/ imports nothing outside itself but errors.ts: the client and the transport know no caller',
      'http/',
      /^(?!http\/|errors\.ts$)/
    ],
    [
      'settings.ts imports neither mode: what both read lives at the top (limits.ts)',
      'settings.ts',
      /^(stats|votes)\//
    ],
    ['the stats mode does not import the vote-check mode', 'stats/', /^votes\//],
    ['the vote-check mode does not import the stats mode', 'votes/', /^stats\//]
  ] as const)('%s', (_, from, refused) => {
    const sources = MODULES.filter(module => module.startsWith(from))
    expect(sources.length).toBeGreaterThan(0)
    expect(
      sources.flatMap(module =>
        GRAPH.get(module)!
          .filter(target => refused.test(target))
          .map(target => `${module} imports ${target}`)
      )
    ).toEqual([])
  })

  it('http/client.ts names no request of a caller: each caller owns its policy', () => {
    expect(read('http/client.ts')).not.toMatch(/POLICIES|name: ['"]/)
  })

  it('imports run one way: no cycle in src/, type-only and dynamic imports included', () => {
    const cycles: string[] = []
    const done = new Set<string>()
    const visit = (module: string, path: string[]): void => {
      if (path.includes(module))
        cycles.push([...path.slice(path.indexOf(module)), module].join(' -> '))
      else if (!done.has(module)) {
        for (const target of GRAPH.get(module) ?? []) visit(target, [...path, module])
        done.add(module)
      }
    }
    for (const module of MODULES) visit(module, [])
    expect(cycles).toEqual([])
    expect(GRAPH.get('main.ts')!.length, 'the graph holds the imports').toBeGreaterThan(3)
  })

  it('only settings.ts reads inputs', () => {
    expect(
      MODULES.filter(module =>
        /\bcore\.getInput|\bgetBooleanInput|\bgetMultilineInput/.test(read(module))
      )
    ).toEqual(['settings.ts'])
  })
})
