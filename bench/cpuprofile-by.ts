/**
 * Sums a V8 .cpuprofile's self time by function, by file or by package, in µs a lead, so two
 * profiles (`bench/profile-ingest.ts --out dir`) can be compared line by line.
 *
 * Only samples from the first one whose stack holds a frame matching --from (a regular expression over
 * "function url"; the webhook's handler by default) count: the server's start is not the ingest. With --total, time under each function (self and callees).
 *
 *   node --import tsx bench/cpuprofile-by.ts --leads 52757 [--by function|file|package] [--top 40] [--from 'regexp'] [--total] a.cpuprofile [b.cpuprofile …]
 */
import fs from 'node:fs'
import { parseArgs } from 'node:util'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    leads: { type: 'string' },
    by: { type: 'string', default: 'function' },
    top: { type: 'string', default: '40' },
    from: { type: 'string', default: '^handler .*ingest-lead\\.route' },
    total: { type: 'boolean', default: false },
  },
})

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: readonly number[]
}
interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

/** A file's place shortened to its package (node_modules/x) or its path under src/. */
function place(url: string): string {
  const modules = url.lastIndexOf('node_modules/')
  if (modules >= 0) return url.slice(modules)
  const source = url.search(/\/(src|projections|bench)\//)
  if (source >= 0) return url.slice(source + 1)
  return url || '(native)'
}

function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame
  const file = place(url)
  if (values.by === 'file') return file
  if (values.by === 'package') {
    const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)
    if (pkg) return pkg[1] as string
    const dir = /^((?:dist\/)?(?:src|projections)\/[^/]+)/.exec(file)
    return dir ? (dir[1] as string) : file
  }
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`
}

const from = new RegExp(values.from)
const sums = new Map<string, number>()
let all = 0
for (const file of positionals) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  let started = values.from === ''
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number
    const node = byId.get(id) as ProfileNode
    if (!started) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const { functionName, url } = (byId.get(at) as ProfileNode).callFrame
        if (from.test(`${functionName} ${url}`)) {
          started = true
          break
        }
      }
      if (!started) continue
    }
    const name = node.callFrame.functionName
    if (name === '(idle)' || name === '(root)') continue
    // A sample's time is the gap to the next one.
    const micros = (profile.timeDeltas[i + 1] ?? 0)
    all += micros
    if (values.total) {
      const seen = new Set<string>()
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const key = keyOf(byId.get(at) as ProfileNode)
        if (seen.has(key)) continue
        seen.add(key)
        sums.set(key, (sums.get(key) ?? 0) + micros)
      }
    } else {
      const key = keyOf(node)
      sums.set(key, (sums.get(key) ?? 0) + micros)
    }
  }
}

const leads = Number(values.leads ?? 1)
const unit = values.leads ? 'µs a lead' : 'µs'
console.log(`${(all / leads).toFixed(1)} ${unit} sampled (not idle) in ${positionals.length} profile(s)`)
for (const [key, micros] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${(micros / leads).toFixed(1).padStart(8)}  ${key}`)
}
