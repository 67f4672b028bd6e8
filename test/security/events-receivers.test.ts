/**
 * Outbound events never reach an internal network (issue #40). Through the real commands, the real
 * delivery process and real sockets on 127.0.0.1: every spelling of an internal host is refused when
 * it is subscribed, with a stable code, nothing recorded; a name that resolves to a public address
 * when subscribed and to loopback at delivery (DNS rebinding, through a hosts-style resolver given to
 * the adapter) is refused before any connection; an open, a closed, a resetting and a hanging port
 * read the same in the delivery log, at the same speed; a subscription kept on the log from before is
 * refused at delivery. With LEADLINE_EVENTS_ALLOW_PRIVATE=1, loopback delivery works and redirects
 * stay unfollowed.
 */
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { dialingApp, freePortUrl, postLead, reopen, sleep, waitFor } from '../helpers/dialing-app.ts'
import { signedInConsole, TEST_ENV } from '../http/console/console-helpers.ts'
import { startReceiver } from '../processes/outbound-events/receiver.ts'
import type { HostResolver } from '../../src/integrations/event-receivers/event-receivers.ts'
import type { Leadline } from '../../src/leadline.ts'

const FAST = { firstDelayMs: 40, maxDelayMs: 200, pollMs: 20, timeoutMs: 1000 }
const PUBLIC_ADDRESS = '93.184.215.14'

/** An /etc/hosts of the test's: each name's addresses, asked afresh at every lookup (a function may change its answer). */
function hosts(table: Record<string, string[] | (() => string[])>): HostResolver & { asked: string[] } {
  const asked: string[] = []
  const resolve = async (hostname: string) => {
    asked.push(hostname)
    const entry = table[hostname]
    const addresses = typeof entry === 'function' ? entry() : entry
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return addresses.map((address) => ({ address, family: net.isIP(address) }))
  }
  return Object.assign(resolve, { asked })
}

/** A TCP port on 127.0.0.1 that counts the connections it is offered and does what the test says with them. */
async function port(t: Test, behaviour: 'hang' | 'reset'): Promise<{ port: number; connections: () => number }> {
  let connections = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    connections++
    if (behaviour === 'reset') socket.resetAndDestroy()
    else sockets.add(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  t.teardown(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy()
    server.close(() => resolve())
  }))
  return { port: (server.address() as AddressInfo).port, connections: () => connections }
}

function deliveries(leadline: Leadline, accountId: string) {
  return leadline.eventSubscriptions.deliveries(accountId, { limit: 100 })
}

/** The list once it holds something (waitFor polls on while it is empty). */
const found = <T>(list: T[]): T[] | undefined => (list.length > 0 ? list : undefined)

t.test('every spelling of an internal receiver is refused when subscribed, with a stable code, and nothing is recorded', async (t) => {
  const resolve = hosts({
    'localhost': ['127.0.0.1', '::1'],
    'metadata.example': ['169.254.169.254'],
    'db.internal.example': ['10.0.0.5'],
    'half.example': [PUBLIC_ADDRESS, '192.168.1.10'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'v6-local.example': ['fd00::5'],
    'crm.example.com': [PUBLIC_ADDRESS],
  })
  const built = await buildApp(t, { start: false, eventReceivers: { resolve } })
  const { account } = await built.createAccount('Acme')
  const open = await port(t, 'hang')
  const refused: Array<[string, string]> = [
    [`http://127.0.0.1:${String(open.port)}/hooks`, 'receiver_not_https'],
    ['http://crm.example.com/hooks', 'receiver_not_https'],
    ...[
      `https://127.0.0.1:${String(open.port)}/hooks`, 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.1/hooks', 'https://10.20.30.40:8443/', 'https://172.16.5.4/', 'https://192.168.0.1/',
      'https://100.64.0.1/', 'https://[::1]/hooks', 'https://[::]/', 'https://0.0.0.0/', 'https://0/', 'https://2130706433/hooks', 'https://0x7f.1/', 'https://0x7f000001/', 'https://127.1/',
      'https://017700000001/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:a9fe:a9fe]/', 'https://[fd00::1]/', 'https://[fe80::1]/', 'https://224.0.0.1/', 'https://255.255.255.255/',
      'https://[64:ff9b::a9fe:a9fe]/', 'https://[2002:a9fe:a9fe::]/',
      // Names: each answer checked, every address of it; one that does not resolve reads the same.
      'https://localhost/', 'https://metadata.example/', 'https://db.internal.example/', 'https://half.example/', 'https://mapped.example/', 'https://v6-local.example/', 'https://nowhere.example/',
    ].map((url): [string, string] => [url, 'receiver_not_public']),
  ]
  for (const [url, code] of refused) {
    await t.rejects(built.leadline.eventSubscriptions.subscribe(account.accountId, url, null, operatorContext), { code }, `${url}: ${code}`)
  }
  t.same(await built.leadline.eventSubscriptions.list(account.accountId), [], 'no subscription recorded')
  t.notOk((await built.leadline.store.readStream(`account-${account.accountId}`)).some((e) => e.type === 'EventsSubscribed'), 'nothing on the log')
  t.equal(open.connections(), 0, 'nothing connected to the port while checking')

  const { subscription } = await built.leadline.eventSubscriptions.subscribe(account.accountId, 'https://crm.example.com/hooks', null, operatorContext)
  t.equal(subscription.url, 'https://crm.example.com/hooks', 'a public https receiver is subscribed')
})

t.test('the console says why a URL is not subscribed', async (t) => {
  const f = await signedInConsole(t, { app: await buildApp(t, { env: TEST_ENV, start: false }) })
  await f.browser.get('/app/connections/events')
  const answered = await f.browser.post('/app/connections/events', { url: 'https://2130706433/hooks' })
  t.equal(answered.statusCode, 200)
  t.match(answered.body, /Not subscribed: the receiver URL must reach public addresses only/)
  t.same(await f.app.leadline.eventSubscriptions.list(f.accountId), [])
})

t.test('a name public when subscribed and loopback at delivery (DNS rebinding) is refused before any connection', async (t) => {
  const target = await port(t, 'hang')
  let rebound = false
  const resolve = hosts({ 'rebind.example': () => (rebound ? ['127.0.0.1'] : [PUBLIC_ADDRESS]) })
  const built = await dialingApp(t, { deliveryPolicy: FAST, eventReceivers: { resolve } })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  await built.leadline.eventSubscriptions.subscribe(account.accountId, `https://rebind.example:${String(target.port)}/hooks`, ['lead.received'], operatorContext)
  rebound = true
  t.equal((await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })).status, 201)
  const [delivery] = await waitFor('two attempts', () => found(deliveries(built.leadline, account.accountId).filter((d) => d.attempts >= 2)), 5000)
  t.equal(delivery?.status, 'pending', 'kept for a retry, like any failed attempt')
  t.equal(delivery?.lastError, 'refused: address not public')
  t.equal(delivery?.lastStatus, null)
  t.ok(delivery?.attemptLog.every((a) => a.error === 'refused: address not public' && a.status === null), 'every attempt refused')
  t.equal(target.connections(), 0, 'the loopback port was never connected to')
  t.ok(resolve.asked.filter((name) => name === 'rebind.example').length >= 3, 'resolved at subscription and again at every delivery')
})

t.test('open, closed, resetting and hanging internal ports read the same in the delivery log, as fast', async (t) => {
  const hanging = await port(t, 'hang')
  const resetting = await port(t, 'reset')
  const closed = Number(new URL(await freePortUrl()).port)
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const open = Number(new URL(receiver.url).port)
  let rebound = false
  const resolve = hosts(Object.fromEntries(['open', 'closed', 'reset', 'hang'].map((name) => [`${name}.example`, () => (rebound ? ['127.0.0.1'] : [PUBLIC_ADDRESS])])))
  const built = await dialingApp(t, { deliveryPolicy: { ...FAST, firstDelayMs: 60_000 }, eventReceivers: { resolve } })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const urls = { open: `https://open.example:${String(open)}/hooks`, closed: `https://closed.example:${String(closed)}/hooks`, reset: `https://reset.example:${String(resetting.port)}/`, hang: `https://hang.example:${String(hanging.port)}/` }
  const ids = new Map<string, string>()
  for (const [name, url] of Object.entries(urls)) ids.set((await built.leadline.eventSubscriptions.subscribe(account.accountId, url, ['lead.received'], operatorContext)).subscription.subscriptionId, name)
  rebound = true
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  const attempted = await waitFor('four attempts', () => {
    const all = deliveries(built.leadline, account.accountId).filter((d) => d.attempts === 1)
    return all.length === 4 ? all : undefined
  }, 5000)
  const shown = attempted.map((d) => ({ receiver: ids.get(d.subscriptionId), error: d.lastError, status: d.lastStatus }))
  t.same(new Set(shown.map((s) => JSON.stringify({ error: s.error, status: s.status }))), new Set([JSON.stringify({ error: 'refused: address not public', status: null })]), `one answer for all four: ${JSON.stringify(shown)}`)
  const durations = attempted.map((d) => d.attemptLog[0]?.durationMs ?? Infinity)
  t.ok(durations.every((ms) => ms < FAST.timeoutMs / 2), `none waits for the port (${durations.join(', ')} ms)`)
  t.equal(receiver.received.length + hanging.connections() + resetting.connections(), 0, 'no port was connected to')
})

t.test('a loopback subscription kept on the log from before is refused at delivery; LEADLINE_EVENTS_ALLOW_PRIVATE=1 delivers to it', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  const allowed = { LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_EVENTS_ALLOW_PRIVATE: '1' }
  const built = await dialingApp(t, { store: 'sqlite', env: allowed, deliveryPolicy: FAST })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const { secret } = await built.leadline.eventSubscriptions.subscribe(account.accountId, receiver.url, ['lead.received'], operatorContext)
  receiver.secret = secret
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  await waitFor('delivered to loopback with the setting on', () => receiver.received.length === 1, 5000)
  t.ok(receiver.received[0]?.verified, 'signed as any delivery')
  await t.rejects(built.leadline.eventSubscriptions.subscribe(account.accountId, 'http://169.254.169.254/latest/meta-data/', null, operatorContext), { code: 'receiver_not_public' }, 'link-local stays refused')
  await built.app.close()
  await built.leadline.close()

  // The same log, the setting off (its default): the kept subscription is refused at every delivery.
  const again = await reopen(t, { store: built.store, viewsPath: built.viewsPath }, { env: { LEADLINE_SIMULATED_DELAY_MS: '20' }, deliveryPolicy: FAST })
  await postLead(again.app, token, { phone: '+13125550143', name: 'John Doe' })
  const refused = await waitFor('refused', () => deliveries(again.leadline, account.accountId).find((d) => d.attempts >= 1 && d.status !== 'delivered'), 5000)
  t.equal(refused.lastError, 'refused: address not public')
  await sleep(100)
  t.equal(receiver.received.length, 1, 'nothing more reached the receiver')
})

t.test('with LEADLINE_EVENTS_ALLOW_PRIVATE=1, a redirect is an answer, not followed', async (t) => {
  const target = await startReceiver()
  t.teardown(() => target.close())
  const redirecting = http.createServer((request, response) => {
    request.resume()
    response.writeHead(307, { location: target.url }).end()
  })
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', () => resolve()))
  t.teardown(() => new Promise<void>((resolve) => redirecting.close(() => resolve())))
  redirecting.keepAliveTimeout = 100
  const built = await dialingApp(t, { env: { LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_EVENTS_ALLOW_PRIVATE: '1' }, deliveryPolicy: FAST })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  await built.leadline.eventSubscriptions.subscribe(account.accountId, `http://127.0.0.1:${String((redirecting.address() as AddressInfo).port)}/hooks`, ['lead.received'], operatorContext)
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  const [delivery] = await waitFor('an attempt', () => found(deliveries(built.leadline, account.accountId).filter((d) => d.attempts >= 1)), 5000)
  t.equal(delivery?.lastStatus, 307)
  t.equal(delivery?.lastError, 'HTTP 307')
  await sleep(100)
  t.equal(target.received.length, 0, 'the redirect was not followed')
})
