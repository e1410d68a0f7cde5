/** The test sequencer: the long files first in an ordinary run; with --sequence.shuffle, the files in a seeded random order. */
import { describe, expect, it } from 'vitest'
import type { TestSpecification } from 'vitest/node'
import SlowFirst, { shuffled } from '../support/sequencer.js'

/** Test files as vitest hands them to a sequencer: their path, and the one project they belong to. */
const PROJECT = { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } }
const files = (...names: string[]): TestSpecification[] =>
  names.map(name => ({ moduleId: `/repo/test/${name}`, project: PROJECT }) as unknown as TestSpecification)
const names = (list: TestSpecification[]): string[] => list.map(file => file.moduleId.replace('/repo/test/', ''))

function sequencer(sequence: { shuffle: boolean; seed?: number }): SlowFirst {
  // The parts of vitest's context the sequencer reads: the sequence options, and (unshuffled) no cached timings.
  const ctx = { config: { sequence, root: '/repo' }, cache: { getFileStats: () => undefined, getFileTestResults: () => undefined } }
  return new SlowFirst(ctx as unknown as ConstructorParameters<typeof SlowFirst>[0])
}

describe('the test sequencer', () => {
  const all = files('a.test.ts', 'b.test.ts', 'repo/local-action.test.ts', 'c.test.ts', 'repo/dist.test.ts', 'd.test.ts', 'e.test.ts')

  it('an ordinary run starts the bundle build and the tool start-up first', async () => {
    const order = names(await sequencer({ shuffle: false }).sort(all))
    expect(order.slice(0, 2)).toEqual(['repo/dist.test.ts', 'repo/local-action.test.ts'])
    expect([...order].sort()).toEqual([...names(all)].sort())
  })

  it('a shuffled run honours the seed: the same seed gives the same order, another seed another order', async () => {
    const one = names(await sequencer({ shuffle: true, seed: 1 }).sort(all))
    const again = names(await sequencer({ shuffle: true, seed: 1 }).sort(all))
    const other = names(await sequencer({ shuffle: true, seed: 2 }).sort(all))
    expect(one).toEqual(again)
    expect([one, other].some(order => order.join() !== names(all).join())).toBe(true)
    expect(one.join()).not.toBe(other.join())
    expect([...one].sort()).toEqual([...names(all)].sort())
  })

  it('shuffled() keeps every item once and moves them', () => {
    const items = Array.from({ length: 50 }, (_, i) => i)
    const out = shuffled(items, 42)
    expect([...out].sort((a, b) => a - b)).toEqual(items)
    expect(out).not.toEqual(items)
  })
})
