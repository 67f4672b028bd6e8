/**
 * Raw bytes over a real socket, where `inject` cannot go: bodies that are not UTF-8, wrong, missing
 * and repeated content types, lying content lengths, broken chunked encoding, bytes in headers that
 * HTTP forbids. The server must answer each with a 4xx (a JSON `error` whenever there is a body) or
 * close the connection, never a 5xx, never stop serving; and refused requests record nothing.
 */
import net from 'node:net'
import t from 'tap'
import fc from 'fast-check'
import { openFuzzTarget } from '../helpers/fuzz-harness.ts'

interface RawAnswer {
  status: number | null
  headers: string
  body: string
}

/** Writes `bytes`, half-closes, and reads until the server closes (or 5 s pass: then it hung). */
function raw(port: number, bytes: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within 5 s to ${JSON.stringify(bytes.subarray(0, 200).toString('latin1'))}`))
    }, 5000)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', () => undefined) // a reset after the answer is fine
    socket.on('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('utf8')
      const [head = '', ...rest] = text.split('\r\n\r\n')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]
      resolve({ status: status === undefined ? null : Number(status), headers: head, body: rest.join('\r\n\r\n') })
    })
    socket.end(bytes)
  })
}

function request(path: string, headers: Record<string, string | number>, body: Buffer | string): Buffer {
  const head = [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n')
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)])
}

/** The body of a chunked answer, de-chunked (enough for the small JSON errors here). */
function dechunk(answer: RawAnswer): string {
  if (!/transfer-encoding: chunked/i.test(answer.headers)) return answer.body
  return answer.body.replace(/(^|\r\n)[0-9a-f]+\r\n/gi, '').replace(/\r\n$/, '')
}

function problemsOf(answer: RawAnswer): string[] {
  const problems: string[] = []
  if (answer.status !== null && answer.status >= 500) problems.push(`answered ${answer.status}: ${answer.body.slice(0, 200)}`)
  if (answer.status !== null && answer.status >= 400) {
    const body = dechunk(answer)
    if (body !== '') {
      try {
        const parsed = JSON.parse(body) as Record<string, unknown>
        if (!('error' in parsed)) problems.push(`a ${answer.status} without an error member: ${body}`)
      } catch {
        problems.push(`a ${answer.status} whose body is not JSON: ${body.slice(0, 200)}`)
      }
    }
  }
  return problems
}

const INVALID_UTF8 = [
  Buffer.from([0xff, 0xfe, 0xfd]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xe2, 0x28, 0xa1]),
  Buffer.from([0xf0, 0x28, 0x8c, 0x28]),
  Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate
  Buffer.from([0xc0, 0xaf]), // an overlong slash
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0x00]),
]

t.test('raw bytes over a real socket at every door', async (t) => {
  const fuzz = await openFuzzTarget(t.testdir(), { keysPerScopeSet: 1 })
  t.teardown(() => fuzz.close())
  await fuzz.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = fuzz.app.server.address() as net.AddressInfo
  const token = fuzz.world.token
  const key = fuzz.world.keys[0] as string
  const doors: Array<{ path: string; auth: Record<string, string> }> = [
    { path: '/api/ingest/lead', auth: { 'x-service-token': token } },
    { path: `/api/ingest/lead?token=${token}`, auth: {} },
    { path: '/api/mcp', auth: { authorization: `Bearer ${key}` } },
    { path: '/api/carrier/twilio/status', auth: { 'x-twilio-signature': 'AAAA' } },
    { path: '/api/payments/stripe/webhook', auth: { 'stripe-signature': 't=1,v1=00' } },
  ]

  const cases: Array<{ name: string; bytes: (door: (typeof doors)[number]) => Buffer }> = []
  for (const [i, bad] of INVALID_UTF8.entries()) {
    const json = Buffer.concat([Buffer.from('{"phone":"3125550142","name":"'), bad, Buffer.from('","jsonrpc":"2.0","id":1,"method":"ping"}')])
    const form = Buffer.concat([Buffer.from('phone=3125550142&name='), bad, Buffer.from('&CallSid=CA1&CallStatus=completed')])
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'text/plain']) {
      const body = type.includes('json') ? json : form
      cases.push({ name: `invalid UTF-8 #${i} as ${type}`, bytes: (d) => request(d.path, { ...d.auth, 'content-type': type, 'content-length': body.length }, body) })
    }
    const multipart = Buffer.concat([Buffer.from('--b\r\nContent-Disposition: form-data; name="phone"\r\n\r\n3125550142\r\n--b\r\nContent-Disposition: form-data; name="'), bad, Buffer.from('"\r\n\r\n'), bad, Buffer.from('\r\n--b--\r\n')])
    cases.push({ name: `invalid UTF-8 #${i} in multipart`, bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'multipart/form-data; boundary=b', 'content-length': multipart.length }, multipart) })
  }
  const lead = '{"phone":"3125550142"}'
  const contentTypes = ['', 'application/xml', 'text/plain; charset=utf-16', 'application/json; charset=utf-16', 'multipart/form-data', 'multipart/form-data; boundary=', '*/*', 'application/json\u0000', '\u00ff\u00fe']
  for (const type of contentTypes) {
    cases.push({ name: `content-type ${JSON.stringify(type)}`, bytes: (d) => request(d.path, { ...d.auth, 'content-type': type, 'content-length': lead.length }, lead) })
  }
  cases.push(
    { name: 'no content-type', bytes: (d) => request(d.path, { ...d.auth, 'content-length': lead.length }, lead) },
    { name: 'two content-types', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json\r\ncontent-type: text/plain', 'content-length': lead.length }, lead) },
    { name: 'content-length larger than the body (the socket half-closes)', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'content-length': 500 }, lead) },
    { name: 'content-length smaller than the body', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'content-length': 3 }, lead) },
    { name: 'content-length not a number', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'content-length': 'abc' }, lead) },
    { name: 'two content-lengths', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'content-length': `${lead.length}\r\ncontent-length: 2` }, lead) },
    { name: 'content-length and chunked', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'content-length': lead.length, 'transfer-encoding': 'chunked' }, `${lead.length.toString(16)}\r\n${lead}\r\n0\r\n\r\n`) },
    { name: 'broken chunked encoding', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, `zz\r\n${lead}\r\n0\r\n\r\n`) },
    { name: 'a chunk longer than said', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, `2\r\n${lead}\r\n0\r\n\r\n`) },
    { name: 'chunked over the body limit', bytes: (d) => request(d.path, { ...d.auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, `${(2_000_000).toString(16)}\r\n${'x'.repeat(2_000_000)}\r\n0\r\n\r\n`) },
    { name: 'a header with a raw 0xff byte in the token', bytes: (d) => Buffer.concat([request(d.path, { 'content-type': 'application/json', 'content-length': lead.length }, '').subarray(0, -2), Buffer.from('x-service-token: llwh_\xff\xfe\r\nauthorization: Bearer ll_live_\xff\r\n\r\n', 'latin1'), Buffer.from(lead)]) },
    { name: 'a NUL in a header', bytes: (d) => request(d.path, { ...d.auth, 'x-service-token': 'llwh_\u0000', 'content-type': 'application/json', 'content-length': lead.length }, lead) },
    { name: 'an 80 KiB header', bytes: (d) => request(d.path, { ...d.auth, 'x-filler': 'a'.repeat(80 * 1024), 'content-type': 'application/json', 'content-length': lead.length }, lead) },
    { name: 'HTTP/1.0 without a host', bytes: (d) => Buffer.from(`POST ${d.path} HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${lead.length}\r\n\r\n${lead}`) },
    { name: 'not HTTP at all', bytes: () => Buffer.from('\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003', 'latin1') },
    { name: 'a path with invalid percent-encoding', bytes: (d) => request(`${d.path}${d.path.includes('?') ? '&' : '?'}x=%E0%A4%A&%ZZ=%`, { ...d.auth, 'content-type': 'application/json', 'content-length': lead.length }, lead) },
  )

  const before = await fuzz.leadline.store.headPosition()
  let sent = 0
  for (const door of doors) {
    for (const c of cases) {
      const answer = await raw(port, c.bytes(door))
      sent++
      const problems = problemsOf(answer)
      if (problems.length > 0) t.fail(`${door.path}: ${c.name}: ${problems.join('; ')}`)
    }
  }
  t.pass(`${sent} raw requests answered without a 5xx, every 4xx body JSON with an error member`)

  // Random bytes after a valid request line and headers, for each door.
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...doors), fc.uint8Array({ maxLength: 300 }), fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=b', 'text/plain'), async (door, bytes, type) => {
      const answer = await raw(port, request(door.path, { ...door.auth, 'content-type': type, 'content-length': bytes.length }, Buffer.from(bytes)))
      const problems = problemsOf(answer)
      if (problems.length > 0) throw new Error(problems.join('; '))
    }),
    { numRuns: 300 },
  )
  const after = await fuzz.leadline.store.headPosition()
  // Only the webhook's valid leads may have been recorded: count them instead of trusting the head alone.
  const recorded = (await fuzz.leadline.store.readAll()).filter((e) => e.position > before)
  t.ok(recorded.every((e) => e.stream.startsWith('lead-')), `only leads were recorded (${after - before} events)`)
  const healthy = await fetch(`http://127.0.0.1:${port}/healthz`)
  t.equal(healthy.status, 200, 'and the server is still serving')
})
