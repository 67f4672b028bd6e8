/**
 * Addresses an owner types (a CalDAV server, a self-hosted Cal.com) are reached on public networks only
 * unless the operator allows private ones (src/integrations/network/public-fetch.ts): checked when they are
 * kept, and every connection pinned to addresses the rules allow, so a name that resolves to a private
 * address at connection time never reaches it. A hosts-style resolver stands in for DNS.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { AddressNotAllowed, ownerNetwork, PlainHttpRefused, type Resolver } from '../../../src/integrations/network/public-fetch.ts'

const HOSTS: Record<string, string[]> = {
  'cal.example.com': ['93.184.216.34'],
  'office.example.com': ['10.0.0.5'],
  'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
}
let resolveLocal = '127.0.0.1'
const resolver: Resolver = async (name) => {
  if (name === 'local.test') return [{ address: resolveLocal, family: 4 }]
  const found = HOSTS[name]
  if (found === undefined) throw new Error('ENOTFOUND')
  return found.map((address) => ({ address, family: 4 }))
}

t.test('the check: public https addresses pass; private, loopback, metadata, unresolvable and plain http are refused', async (t) => {
  const closed = ownerNetwork({ allowPrivate: false }, resolver)
  await closed.check('https://cal.example.com/dav/')
  await t.rejects(closed.check('http://cal.example.com/dav/'), PlainHttpRefused, 'the password would travel in the clear')
  for (const url of ['https://office.example.com/', 'https://mixed.example.com/', 'https://metadata.example.com/', 'https://127.0.0.1/', 'https://[::1]/', 'https://169.254.169.254/', 'https://2130706433/', 'https://nowhere.example.com/']) {
    await t.rejects(closed.check(url), AddressNotAllowed, url)
  }
  const open = ownerNetwork({ allowPrivate: true }, resolver)
  await open.check('http://office.example.com/')
  await open.check('http://127.0.0.1:5232/')
  await t.rejects(open.check('http://metadata.example.com/'), AddressNotAllowed, 'the metadata address stays refused with private networks allowed')
  await t.rejects(open.check('http://169.254.169.254/latest/meta-data/'), AddressNotAllowed)
})

t.test('the fetch: a name that resolves to a private address at connection time never reaches it', async (t) => {
  let requests = 0
  const server = http.createServer((_request, response) => {
    requests++
    response.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const port = (server.address() as AddressInfo).port

  const closed = ownerNetwork({ allowPrivate: false }, resolver)
  await t.rejects(closed.fetch(`http://local.test:${port}/`), { name: 'TypeError' }, 'a name resolving to loopback')
  await t.rejects(closed.fetch(`http://127.0.0.1:${port}/`), AddressNotAllowed, 'a loopback literal')
  t.equal(requests, 0, 'nothing reached the local server')

  const open = ownerNetwork({ allowPrivate: true }, resolver)
  t.equal(await (await open.fetch(`http://local.test:${port}/`)).text(), 'ok', 'allowed private network: reached')
  resolveLocal = '169.254.169.254'
  await t.rejects(open.fetch(`http://local.test:${port}/`), { name: 'TypeError' }, 'the same name now resolving to the metadata address: refused at connection')
  t.equal(requests, 1)
})
