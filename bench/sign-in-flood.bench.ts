/**
 * `node --import tsx bench/sign-in-flood.bench.ts [--seconds 10] [--flooders 32]`: the webhook's
 * latency while console sign-ins flood the server from many addresses (LEADLINE_TRUST_PROXY and a
 * made-up X-Forwarded-For each, so the per-address limit does not stop them; default scrypt cost).
 * One client posts leads one after another, first alone, then during the flood; prints both.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openLeadline } from '../src/leadline.ts'
import { percentile, serveChild } from './bench-kit.ts'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, flooders: { type: 'string', default: '32' }, port: { type: 'string', default: '3911' } } })
const seconds = Number(values.seconds)
const flooders = Number(values.flooders)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-sign-in-flood-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`

const setup = await openLeadline({ store, viewsPath: path.join(dir, 'leadline.views.db'), env: {} })
const { account, webhookToken } = await setup.accounts.create('Flood Co', {}, { actor: { kind: 'operator', id: 'bench' } })
await setup.close()

const server = await serveChild(['src/cli/bin.ts', 'serve'], { LEADLINE_STORE: store, LEADLINE_TRUST_PROXY: 'true', LEADLINE_WEBHOOK_RATE: 'off' }, Number(values.port))

/** Posts leads one after another until `until`; their latencies in ms. */
async function webhook(until: number, offset: number): Promise<number[]> {
  const latencies: number[] = []
  for (let i = 0; Date.now() < until; i++) {
    const started = performance.now()
    const response = await fetch(`${server.url}/api/ingest/lead`, {
      method: 'POST', headers: { 'x-service-token': webhookToken.secret, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: `312${String(offset + i).padStart(7, '0')}`, name: 'Flood Lead' }),
    })
    await response.arrayBuffer()
    if (response.status >= 300) throw new Error(`webhook answered ${response.status}`)
    latencies.push(performance.now() - started)
  }
  return latencies
}

const page = await fetch(`${server.url}/app/sign-in`)
const cookie = (page.headers.getSetCookie() ?? []).map((c) => c.split(';')[0]).join('; ')
const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''

/** Signs in as unknown people from new addresses until `until`; counts answers by status. */
async function flood(until: number, id: number, statuses: Map<number, number>): Promise<void> {
  for (let i = 0; Date.now() < until; i++) {
    const response = await fetch(`${server.url}/app/sign-in`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.${id}.${(i >> 8) & 255}.${i & 255}` },
      body: new URLSearchParams({ _csrf: csrf, email: `nobody${id}-${i}@example.com`, password: 'not a password at all' }).toString(),
    })
    await response.arrayBuffer()
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
  }
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b)
  return `${sorted.length} leads, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`
}

const alone = await webhook(Date.now() + seconds * 1000, 0)
const statuses = new Map<number, number>()
const until = Date.now() + seconds * 1000
const [during] = await Promise.all([webhook(until, 1_000_000), ...Array.from({ length: flooders }, (_, id) => flood(until, id, statuses))])
console.log(`account ${account.accountId}, ${os.cpus().length} cores, ${flooders} sign-in flooders, ${seconds} s each`)
console.log(`webhook alone:        ${summary(alone)}`)
console.log(`webhook during flood: ${summary(during as number[])}`)
console.log(`sign-ins answered: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}`)
await server.stop()
fs.rmSync(dir, { recursive: true, force: true })
