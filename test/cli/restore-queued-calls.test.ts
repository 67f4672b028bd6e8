/**
 * `leadline restore` of a backup taken while calls were queued, through the real command and real
 * servers against the fake Twilio: the calls the backup holds as decided (or claimed) were rung after
 * it was taken, so after the restore none of them rings again; each is recorded expired
 * (`restored_from_backup`) and its follow-up goes on from the next step, on every start.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { receiveLead } from '../../src/commands/receive-lead.command.ts'
import { leadDecider } from '../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../src/domain/lead/lead.events.ts'
import { runLeadline, startServer } from '../helpers/cli.ts'
import { operatorContext } from '../helpers/build-app.ts'
import { startFakeTwilio, twilioEnv } from '../doubles/fake-twilio.ts'
import { DIALING_SETTINGS, filesIn, serverEnv, setUpAccount, sleep, type StoreFiles } from '../faults/fault-kit.ts'

const PHONES = ['3125550101', '3125550102', '3125550103', '3125550104', '3125550105']

interface Row {
  readonly stream: string
  readonly type: string
  readonly data: string
}

function eventsIn(files: StoreFiles): Row[] {
  const db = new Database(files.store.slice('sqlite:'.length), { readonly: true, fileMustExist: true })
  try {
    return db.prepare('SELECT stream, type, data FROM events ORDER BY position').all() as Row[]
  } finally {
    db.close()
  }
}

t.test('a restore of a backup taken while calls were queued rings nobody twice; each call is expired and follow-up goes on', async (t) => {
  const dir = t.testdir()
  const fake = await startFakeTwilio()
  t.teardown(() => fake.close())
  const live = filesIn(path.join(dir, 'live'))
  const account = await setUpAccount(live, { ...DIALING_SETTINGS, callsPerSecond: 100, followUp: '1h, 1h' })

  // Five leads whose speed-to-lead calls are decided and not yet carried out; the last one claimed (a dialer was calling it).
  const queueing = await openLeadline({ store: live.store, viewsPath: live.viewsPath, env: twilioEnv(fake) })
  const state = await queueing.accounts.get(account.accountId)
  if (!state) throw new Error('no account')
  for (const phone of PHONES) await receiveLead(queueing, state, { name: `Lead ${phone}`, phone }, operatorContext)
  const claimedStream = leadStream(account.accountId, PHONES[4] as string)
  const { state: lastLead } = await queueing.commands.load(claimedStream, leadDecider)
  const [claimedId] = lastLead.dialing.order
  await queueing.commands.handle(claimedStream, leadDecider, { type: 'StartCallAttempt', decisionId: claimedId as string, node: 'before-backup' }, operatorContext)
  await queueing.close()

  const backupFile = path.join(dir, 'backup.db')
  const backup = await runLeadline(['backup', backupFile, '--json'], serverEnv(live))
  t.equal(backup.code, 0, backup.stderr)
  const head = (JSON.parse(backup.stdout) as { head: number }).head

  // After the backup the server rings the four queued calls (the claimed one is never redialed).
  const first = await startServer(serverEnv(live, twilioEnv(fake)))
  await fake.waitForCalls(4)
  await sleep(500)
  await first.stop()
  t.equal(fake.callRequests().length, 4, 'four people rung after the backup')

  const restored = filesIn(path.join(dir, 'restored'))
  const restore = await runLeadline(['restore', backupFile, '--json'], serverEnv(restored))
  t.equal(restore.code, 0, restore.stderr)
  const marker = eventsIn(restored).filter((e) => e.type === 'LogRestored')
  t.equal(marker.length, 1, 'the restore is recorded on the restored log')
  t.match(JSON.parse(marker[0]?.data ?? '{}'), { backupHead: head, restoredAt: String })

  // Started twice on the restored log: the first start expires, the second finds nothing left.
  for (let start = 0; start < 2; start++) {
    const server = await startServer(serverEnv(restored, twilioEnv(fake)))
    await sleep(1500)
    await server.stop()
  }
  t.equal(fake.callRequests().length, 4, 'nobody rung a second time')

  const events = eventsIn(restored)
  for (const phone of PHONES) {
    const stream = leadStream(account.accountId, phone)
    const types = events.filter((e) => e.stream === stream).map((e) => e.type)
    t.notOk(types.includes('CallPlaced'), `${phone}: no call placed from the restored log`)
    t.equal(types.filter((type) => type === 'CallExpired').length, 1, `${phone}: its call recorded expired, once`)
    const expired = events.find((e) => e.stream === stream && e.type === 'CallExpired')
    t.match(JSON.parse(expired?.data ?? '{}'), { reason: 'restored_from_backup' })
    const followUp = events.find((e) => e.stream === stream && e.type === 'FollowUpScheduled')
    t.match(JSON.parse(followUp?.data ?? '{}'), { attempt: 2 }, `${phone}: follow-up goes on from its next step`)
  }

  const verified = await runLeadline(['audit', 'verify', '--json'], serverEnv(restored))
  t.equal(verified.code, 0, verified.stderr)
})
