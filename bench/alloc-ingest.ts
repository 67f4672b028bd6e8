/**
 * Where the webhook's allocations come from: runs the server in this process, drives new leads at
 * 50 connections (a warm-up, then --duration seconds under V8's sampling heap profiler, counting
 * objects already collected), and prints the bytes allocated a lead on the main thread, by function.
 * Allocation is what the garbage collector is paid for: a quarter of the server's CPU a lead.
 *
 * With --survivors it counts only what outlived the young generation's collections (what V8 promoted
 * to the old generation, whose collection is the costly kind, or what is still alive at the end).
 *
 *   node --import tsx bench/alloc-ingest.ts [--duration 5] [--top 40] [--survivors]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Session } from 'node:inspector/promises'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config/config.ts'
import { serve } from '../src/http/server.ts'
import { openLeadline } from '../src/leadline.ts'
import { load, newLeadsPattern } from './bench-kit.ts'

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, top: { type: 'string', default: '40' }, port: { type: 'string', default: '3955' }, survivors: { type: 'boolean', default: false } } })

interface SamplingNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: readonly SamplingNode[]
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-alloc-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
const setup = await openLeadline({ store, viewsPath: path.join(dir, 'leadline.views.db') })
const { webhookToken } = await setup.accounts.create('Alloc', {}, { actor: { kind: 'operator', id: 'bench' } })
await setup.close()
const config = loadConfig({
  ...process.env, LEADLINE_STORE: store, PORT: values.port, HOST: '127.0.0.1', LOG_LEVEL: 'warn', LEADLINE_WEBHOOK_RATE: '1000000', LEADLINE_WEBHOOK_BURST: '1000000',
})
const server = await serve(config)
const url = `http://127.0.0.1:${values.port}/api/ingest/lead`
const headers = { 'content-type': 'application/json', 'x-service-token': webhookToken.secret }
await load({ url, connections: 50, durationSeconds: 3, pattern: newLeadsPattern(headers, 125_000_000) })

const session = new Session()
session.connect()
await session.post('HeapProfiler.enable')
// Node 20's typings lack the two flags; V8 takes them (without them only survivors are sampled).
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !values.survivors } as { samplingInterval: number })
const result = await load({ url, connections: 50, durationSeconds: Number(values.duration), pattern: newLeadsPattern(headers, 135_000_000) })
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } }
session.disconnect()
await server.stop()
fs.rmSync(dir, { recursive: true, force: true })

const byFunction = new Map<string, number>()
let all = 0
const walk = (node: SamplingNode): void => {
  const { functionName, url: file, lineNumber } = node.callFrame
  const key = `${functionName || '(anonymous)'} ${file.replace(/.*\/(node_modules\/[^/]+|src|projections)\//, '$1/')}:${lineNumber}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize)
  all += node.selfSize
  for (const child of node.children) walk(child)
}
walk(profile.head)
console.log(`${result.total} leads at ${Math.round(result.requestsPerSecond)}/s: ${Math.round(all / result.total)} bytes ${values.survivors ? 'outliving the young generation' : 'allocated'} a lead on the main thread`)
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${String(Math.round(bytes / result.total)).padStart(7)}  ${name}`)
}
process.exit(0)
