/**
 * Profiles the server under ingest load: starts `leadline serve` with `--cpu-prof` (into --out),
 * drives new leads (or repeats with --repeats) at 50 connections for --duration seconds, and stops it
 * so the profile is written. Open the .cpuprofile in Chrome DevTools or speedscope.
 *
 * With --cold, the repeats are of people seen long ago (more than the server keeps in memory).
 *
 *   node --import tsx bench/profile-ingest.ts [--duration 10] [--repeats [--cold]] [--receivers 3] [--out /tmp/prof] [--no-prof]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openLeadline } from '../src/leadline.ts'
import { COLD_REPEAT_POOL, REPEAT_POOL, load, newLeadsPattern, repeatLeadsPattern, seedRepeatPool, serveChild, startCountingReceiver, threadMicrosPer, threadTimes } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    repeats: { type: 'boolean', default: false },
    cold: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(os.tmpdir(), 'leadline-prof') },
    'no-prof': { type: 'boolean', default: false },
    port: { type: 'string', default: '3911' },
    /** Subscribe this many receivers (answering 204) to the account's outbound events. */
    receivers: { type: 'string', default: '0' },
  },
})

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-prof-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
// The receivers listen on 127.0.0.1: LEADLINE_EVENTS_ALLOW_PRIVATE, for the subscription and the server alike.
const setup = await openLeadline({ store, viewsPath: path.join(dir, 'leadline.views.db'), eventReceivers: { allowPrivate: true } })
const { account, webhookToken } = await setup.accounts.create('Profile', {}, { actor: { kind: 'operator', id: 'bench' } })
const receivers = await Promise.all(Array.from({ length: Number(values.receivers) }, () => startCountingReceiver()))
for (const receiver of receivers) await setup.eventSubscriptions.subscribe(account.accountId, receiver.url, null, { actor: { kind: 'operator', id: 'bench' } })
await setup.close()

fs.mkdirSync(values.out, { recursive: true })
const flags = values['no-prof'] ? [] : ['--cpu-prof', `--cpu-prof-dir=${values.out}`]
const server = await serveChild([...flags, 'bin/leadline.js', 'serve'], { LEADLINE_STORE: store, LEADLINE_EVENTS_ALLOW_PRIVATE: '1', LEADLINE_WEBHOOK_RATE: '1000000', LEADLINE_WEBHOOK_BURST: '1000000' }, Number(values.port))
const headers = { 'content-type': 'application/json', 'x-service-token': webhookToken.secret }
const pool = values.cold ? COLD_REPEAT_POOL : REPEAT_POOL
if (values.repeats) await seedRepeatPool(server.url, headers, pool)
const pattern = values.repeats ? repeatLeadsPattern(headers, pool) : newLeadsPattern(headers, 125_000_000)
const before = threadTimes(server.child.pid as number)
const r = await load({ url: `${server.url}/api/ingest/lead`, connections: 50, durationSeconds: Number(values.duration), pattern })
const after = threadTimes(server.child.pid as number)
await server.stop()
for (const receiver of receivers) await receiver.close()
// CPU time per lead, per server thread: comparable between runs even on a busy machine.
const perLead = threadMicrosPer(before, after, r.total)
fs.rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify({ ...r, delivered: receivers.reduce((n, receiver) => n + receiver.count(), 0), load: os.loadavg().map((l) => l.toFixed(2)).join(' '), cpuMicrosecondsPerLead: perLead, out: values.out }))

