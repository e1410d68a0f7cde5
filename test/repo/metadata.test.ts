/** action.yml, as GitHub's parser reads it, against the fixed public interface (test/fixtures/service/interface.md) and package.json. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ACTION_NAME, ACTION_VERSION } from '../../src/version.js'
import { actionMetadata, ROOT } from '../support/action.js'

/** Rows of the Markdown table under a `## heading` of interface.md: first cell (unquoted), second cell. */
async function interfaceTable(heading: string): Promise<[string, string][]> {
  const text = await readFile(join(ROOT, 'test/fixtures/service/interface.md'), 'utf8')
  const section = text.split(`## ${heading}`)[1]!.split('\n## ')[0]!
  return section
    .split('\n')
    .filter(line => /^\| `/.test(line))
    .map(line => line.split('|').map(cell => cell.trim()))
    .map(cells => [cells[1]!.replace(/`/g, ''), cells[2]!.replace(/`/g, '')])
}

describe('action.yml', () => {
  it('declares every input of the interface with its default', async () => {
    const meta = await actionMetadata()
    const inputs = await interfaceTable('Inputs')
    expect(inputs.length).toBeGreaterThanOrEqual(14)
    for (const [name, fixedDefault] of inputs) {
      const declared = meta.inputs?.find(input => input.id === name)
      expect(declared, name).toBeDefined()
      expect(declared!.description, name).toBeTruthy()
      if (fixedDefault === '' || fixedDefault.startsWith('(required')) expect(declared!.default, name).toBeUndefined()
      else expect(declared!.default?.toString(), name).toBe(fixedDefault)
    }
  })

  it('declares every output of the interface', async () => {
    const meta = await actionMetadata()
    const outputs = await interfaceTable('Outputs')
    expect(outputs.length).toBeGreaterThanOrEqual(8)
    for (const [name] of outputs)
      expect(
        meta.outputs?.map(output => output.id),
        name
      ).toContain(name)
  })

  it('runs dist/index.js on node24', async () => {
    const meta = await actionMetadata()
    expect(meta.runs).toMatchObject({ using: 'node24', main: 'dist/index.js' })
  })

  it('names the version of package.json in the User-Agent', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }
    expect(ACTION_NAME).toBe(pkg.name)
    expect(ACTION_VERSION).toBe(pkg.version)
  })
})
