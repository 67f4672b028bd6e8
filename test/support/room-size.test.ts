/**
 * Rooms of a size a person can hold (issue #42): no file under `src/` or `projections/` is over
 * MAX_LINES lines. A file that grows past it is split along a seam (docs/architecture.md names the rooms).
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../../', import.meta.url))
const MAX_LINES = 500
const FOLDERS = ['src', 'projections']

function lineCount(text: string): number {
  if (text === '') return 0
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

/** Every file under `dir` over MAX_LINES lines, as `path: lines`, relative to `base`. */
function oversized(base: string, dir: string): string[] {
  const full = path.join(base, dir)
  if (!fs.existsSync(full)) return []
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : oversized(base, file)
    if (!entry.isFile()) return []
    const lines = lineCount(fs.readFileSync(path.join(base, file), 'utf8'))
    return lines > MAX_LINES ? [`${file}: ${lines} lines`] : []
  })
}

function oversizedIn(base: string): string[] {
  return FOLDERS.flatMap((folder) => oversized(base, folder)).sort()
}

t.test(`no file under ${FOLDERS.join('/ or ')}/ is over ${MAX_LINES} lines`, async (t) => {
  t.same(oversizedIn(root), [])
})

t.test('a file one line over the limit is reported, one at the limit is not', async (t) => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i}`).join('\n') + '\n'
  const dir = t.testdir({
    src: { domain: { 'big.decider.ts': lines(MAX_LINES + 1), 'fits.ts': lines(MAX_LINES) } },
    projections: { calls: { 'calls.projection.ts': lines(MAX_LINES + 20) } },
    test: { 'long.test.ts': lines(MAX_LINES * 2) },
  })
  t.same(oversizedIn(dir), [`projections/calls/calls.projection.ts: ${MAX_LINES + 20} lines`, `src/domain/big.decider.ts: ${MAX_LINES + 1} lines`])
})
