/**
 * Pages for people (the console, the pay page) answer a failure with a page only to a client that
 * asks for one; any other client gets the JSON error body every route answers (docs/errors.md).
 */
import t from 'tap'
import { BROWSER_ACCEPT, buildApp } from '../helpers/build-app.ts'

const JSON_TYPE = /^application\/json/

t.test('a failed console or pay page is a page to a browser and JSON to anyone else', async (t) => {
  const { app } = await buildApp(t)
  const cases = [
    { name: 'no console page', method: 'GET', url: '/app/no-such-page', status: 404, body: { error: 'not found', detail: 'there is no console page at this address' } },
    { name: 'no console asset', method: 'GET', url: '/app/assets/no-such.css', status: 404, body: { error: 'not found', detail: 'there is no such console asset' } },
    { name: 'an unknown set-password link', method: 'GET', url: '/app/set-password?token=nope', status: 410, body: { error: 'link expired' } },
    { name: 'a form posted without its CSRF token', method: 'POST', url: '/app/sign-in', status: 403, body: { error: 'form expired' } },
    { name: 'no such pay link', method: 'GET', url: `/pay/cs_sim_${'0'.repeat(32)}`, status: 404, body: { error: 'not found', detail: 'payment link not found' } },
  ] as const
  for (const c of cases) {
    const form = c.method === 'POST' ? { payload: 'email=a%40b.co&password=x', contentType: 'application/x-www-form-urlencoded' } : undefined
    for (const accept of [undefined, '*/*', 'application/json']) {
      const headers: Record<string, string> = { ...(accept === undefined ? {} : { accept }), ...(form ? { 'content-type': form.contentType } : {}) }
      const response = await app.inject({ method: c.method, url: c.url, headers, ...(form ? { payload: form.payload } : {}) })
      t.equal(response.statusCode, c.status, `${c.name} (Accept ${accept}): ${c.status}`)
      t.match(response.headers['content-type'], JSON_TYPE, `${c.name} (Accept ${accept}): JSON`)
      t.match(response.json(), c.body, `${c.name} (Accept ${accept}): its stable error`)
    }
    const headers: Record<string, string> = { accept: BROWSER_ACCEPT, ...(form ? { 'content-type': form.contentType } : {}) }
    const page = await app.inject({ method: c.method, url: c.url, headers, ...(form ? { payload: form.payload } : {}) })
    t.equal(page.statusCode, c.status, `${c.name}, to a browser: ${c.status}`)
    if (c.url.startsWith('/app/assets/')) {
      t.match(page.headers['content-type'], JSON_TYPE, 'an asset is never a page: JSON even to a browser')
    } else {
      t.match(page.headers['content-type'], /^text\/html/, `${c.name}, to a browser: a page`)
      t.match(page.body, /^<!doctype html>/i)
    }
  }
})
