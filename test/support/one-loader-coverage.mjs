// Run by `npm test` between the tap run (which collects coverage but neither reports nor checks it)
// and `tap report text` (which reports it and fails the run under the thresholds).
//
// Test files run their TypeScript through tap's loader (ts-node); the children they start (the CLI,
// servers, helpers) through tsx, as ./bin/leadline.js does. The two compile a file to different
// JavaScript, and the report reads one line map per file, from whichever process's coverage it
// read last: the coverage files have random names, so a file's numbers (and the thresholds) came
// out right or wrong by chance. So the coverage a tsx process recorded for a file that a ts-node
// process also loaded is dropped here; files only children load keep the children's coverage.
import fs from 'node:fs'
import path from 'node:path'

const dir = path.resolve('.tap', 'coverage')
const strip = (url) => url.split('?')[0]
const reports = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith('.json')) : []
const loaded = reports.map((name) => ({ name, report: JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) }))
// tsx's source maps carry `ignoreList` and no `file`; ts-node's carry `file`.
const isTsx = ({ report }) => Object.values(report['source-map-cache'] ?? {}).some(({ data }) => data && 'ignoreList' in data && !('file' in data))
const byTapLoader = new Set()
for (const entry of loaded) {
  if (isTsx(entry)) continue
  for (const url of Object.keys(entry.report['source-map-cache'] ?? {})) byTapLoader.add(strip(url))
}
let dropped = 0
for (const entry of loaded) {
  if (!isTsx(entry)) continue
  const cache = entry.report['source-map-cache'] ?? {}
  const before = entry.report.result.length
  entry.report.result = entry.report.result.filter((script) => !byTapLoader.has(strip(script.url)))
  for (const url of Object.keys(cache)) if (byTapLoader.has(strip(url))) delete cache[url]
  dropped += before - entry.report.result.length
  fs.writeFileSync(path.join(dir, entry.name), JSON.stringify(entry.report))
}
console.log(`# coverage: ${dropped} scripts from child processes left to the test files' own coverage`)
