/**
 * The test sequencer: the long files first in an ordinary run; with --sequence.shuffle, the files
 * in a seeded random order.
 */
import { expect, it } from 'vitest'
import type { TestSpecification } from 'vitest/node'
import SlowFirst from '../support/sequencer.js'

/**
 * Test files as vitest hands them to a sequencer: their path, and the one project they belong to.
 */
const PROJECT = { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } }
const NAMES = [
  'a.test.ts',
  'b.test.ts',
  'repo/local-action.test.ts',
  'c.test.ts',
  'repo/dist.test.ts',
  'd.test.ts',
  'e.test.ts'
]
const all = NAMES.map(
  name => ({ moduleId: `/repo/test/${name}`, project: PROJECT }) as unknown as TestSpecification
)

async function order(sequence: { shuffle: boolean; seed?: number }): Promise<string[]> {
  // The parts of vitest's context the sequencer reads: the sequence options, and (unshuffled) no
  // cached timings.
  const ctx = {
    config: { sequence, root: '/repo' },
    cache: { getFileStats: () => undefined, getFileTestResults: () => undefined }
  }
  const sorted = await new SlowFirst(
    ctx as unknown as ConstructorParameters<typeof SlowFirst>[0]
  ).sort(all)
  expect(
    [...sorted.map(file => file.moduleId.replace('/repo/test/', ''))].sort(),
    'every file once'
  ).toEqual([...NAMES].sort())
  return sorted.map(file => file.moduleId.replace('/repo/test/', ''))
}

it('an ordinary run starts the bundle build and the tool start-up first', async () => {
  expect((await order({ shuffle: false })).slice(0, 2)).toEqual([
    'repo/dist.test.ts',
    'repo/local-action.test.ts'
  ])
})

it('a shuffled run honours the seed: the same seed gives the same order, another seed another order', async () => {
  const [one, again, other] = [
    await order({ shuffle: true, seed: 1 }),
    await order({ shuffle: true, seed: 1 }),
    await order({ shuffle: true, seed: 2 })
  ]
  expect(one).toEqual(again)
  expect(one).not.toEqual(other)
  expect([one, other].some(shuffled => shuffled.join() !== NAMES.join())).toBe(true)
  // The given list is left as it was.
  expect(all.map(file => file.moduleId)).toEqual(NAMES.map(name => `/repo/test/${name}`))
})
