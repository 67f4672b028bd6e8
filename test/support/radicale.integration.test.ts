/**
 * The Radicale the calendar tests start (test/support/radicale.ts): it listens on 127.0.0.1, knows its one
 * user and no other password, keeps its data in its own folder, and is gone after stop().
 */
import fs from 'node:fs'
import t from 'tap'
import { startRadicale } from './radicale.ts'

const propfind = (url: string, auth?: string) =>
  fetch(url, {
    method: 'PROPFIND',
    headers: { depth: '0', 'content-type': 'application/xml', ...(auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {}) },
    body: '<?xml version="1.0"?><propfind xmlns="DAV:"><prop><current-user-principal/></prop></propfind>',
  })

t.test('Radicale starts on 127.0.0.1 with its own user and folder, and stops', async (t) => {
  const radicale = await startRadicale({ username: 'owner', password: 'app-password-1' })
  t.match(radicale.url, /^http:\/\/127\.0\.0\.1:\d+\/$/)
  t.ok(fs.existsSync(radicale.folder), 'its folder exists while it runs')

  t.equal((await propfind(radicale.url)).status, 401, 'anonymous requests are refused')
  t.equal((await propfind(radicale.url, 'owner:wrong')).status, 401, 'a wrong password is refused')
  const ok = await propfind(radicale.url, 'owner:app-password-1')
  t.equal(ok.status, 207, 'its user is let in')
  t.match(await ok.text(), /\/owner\//, 'and told their principal')

  await radicale.stop()
  t.notOk(fs.existsSync(radicale.folder), 'stop() removes its folder')
  await t.rejects(fetch(radicale.url), 'nothing listens after stop()')
})

t.test('two servers at once get two ports and two folders', async (t) => {
  const [a, b] = await Promise.all([startRadicale(), startRadicale()])
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  t.not(a.url, b.url)
  t.not(a.folder, b.folder)
})
