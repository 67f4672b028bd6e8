/**
 * Appointments in the console (issue #45): the lead's page lists them with times in the account's
 * zone (and the lead's own), the "Attended" and "No-show" buttons once one has begun (a CSRF-checked
 * form through MarkAppointmentOutcome), the timeline says what happened in plain words, and Home's
 * queue shows today's appointments and the no-shows with their reasons in words.
 */
import t from 'tap'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { recordBooking } from '../../helpers/appointments.ts'
import { cockpit, PEOPLE } from './cockpit-fixture.ts'

t.test("a lead's appointments, marked no-show from its page; Home and the timeline say so in words", async (t) => {
  const c = await cockpit(t)
  const stream = leadStream(c.accountId, PEOPLE.ann.phone.slice(-10))
  // 11:00–11:30 Chicago time today; the clock reads 10:20.
  await recordBooking(c.built.leadline.commands, stream, { appointmentId: 'apt_ann1', start: '2026-03-10T16:00:00Z', typeName: 'Roof inspection', leadZone: 'America/Denver' })
  await c.built.leadline.runner.catchUp()

  let page = await c.browser.get(`/app/leads/${c.ids.ann}`)
  t.match(page.body, /<h2 id="appointments">Appointments<\/h2>/)
  t.match(page.body, /<th scope="col">When \(America\/Chicago\)<\/th>/, 'the zone named')
  t.match(page.body, /<td>Roof inspection<\/td><td><time datetime="2026-03-10T16:00:00.000Z">2026-03-10 11:00 CDT<\/time> to <time datetime="2026-03-10T16:30:00.000Z">2026-03-10 11:30 CDT<\/time><br><span class="muted">their time: 10:00 AM MDT<\/span>/)
  t.match(page.body, 'mark it once it has begun')
  t.notMatch(page.body, '/appointments/apt_ann1/outcome', 'no buttons before it begins')
  t.match(page.body, /<span class="badge ok">appointment booked<\/span>/, 'the status')
  const list = await c.browser.get('/app/leads?status=appointment')
  t.same([...list.body.matchAll(/<td><a href="\/app\/leads\/ld_[0-9a-z]+">([^<]*)<\/a><\/td>/g)].map((m) => m[1]), ['Ann Able'], 'the leads list by status')
  let home = await c.browser.get('/app/home')
  t.match(home.body, /Roof inspection today at <time datetime="2026-03-10T16:00:00.000Z">2026-03-10 11:00 CDT<\/time>/)

  c.clock.advance(60 * 60_000) // 11:20: it has begun
  page = await c.browser.get(`/app/leads/${c.ids.ann}`)
  t.match(page.body, /action="\/app\/leads\/ld_[0-9a-z]+\/appointments\/apt_ann1\/outcome"[\s\S]*?name="outcome" value="attended"><button type="submit">Attended<\/button>/)
  t.match(page.body, /name="outcome" value="no_show"><button type="submit" class="secondary">No-show<\/button>/)
  const before = (await c.built.leadline.store.readStream(stream)).length
  const forged = await c.browser.post(`/app/leads/${c.ids.ann}/appointments/apt_ann1/outcome`, { _csrf: 'forged', outcome: 'no_show' })
  t.equal(forged.statusCode, 403)
  t.equal((await c.built.leadline.store.readStream(stream)).length, before, 'a forged form changes nothing')

  c.clock.advance(20 * 60_000) // 11:40: it has ended, unmarked
  home = await c.browser.get('/app/home')
  t.match(home.body, /Their Roof inspection appointment ended <time[^>]*>2026-03-10 11:30 CDT<\/time>: <a href="\/app\/leads\/ld_[0-9a-z]+#appointments">mark attended or no-show<\/a>/)
  page = await c.browser.get(`/app/leads/${c.ids.ann}`)
  t.match(page.body, 'ended, not marked')
  const marked = await c.browser.post(`/app/leads/${c.ids.ann}/appointments/apt_ann1/outcome`, { outcome: 'no_show' })
  t.equal(marked.statusCode, 303)
  t.equal(marked.headers.location, `/app/leads/${c.ids.ann}?marked=no_show#appointments`)
  const events = (await c.built.leadline.store.readStream(stream)).slice(before)
  t.same(events.slice(0, 2).map((e) => e.type), ['AppointmentNoShow', 'FollowUpScheduled'], 'follow-up calls her again')
  t.match(events[0], { data: { by: 'owner' }, metadata: { actor: { kind: 'user' } } })

  page = await c.browser.get(`/app/leads/${c.ids.ann}?marked=no_show`)
  t.match(page.body, /<p role="status">Marked no-show: follow-up calls them again\.<\/p>/)
  t.match(page.body, /<span class="badge bad">no-show<\/span>/)
  t.match(page.body, /name="outcome" value="attended"><button type="submit">Attended<\/button>/, 'a correction stays possible')
  t.notMatch(page.body, /value="no_show"><button/, 'not the mark it has')
  t.match(page.body, /You<\/span>appointment: no-show \(marked by the owner\)<\/li>/, 'the timeline, in words')
  t.match(page.body, /Leadline<\/span>appointment booked by an agent: &#34;Roof inspection&#34; at 2026-03-10 11:00 CDT \(simulated calendar\)<\/li>/)
  t.notMatch(page.body, 'apt_ann1</', 'no internal id in the timeline')
  home = await c.browser.get('/app/home')
  t.match(home.body, /Did not come to their Roof inspection appointment <time[^>]*>2026-03-10 11:00 CDT<\/time>: call to book again/)

  const refused = await c.browser.post(`/app/leads/${c.ids.ann}/appointments/apt_nope/outcome`, { outcome: 'attended' })
  t.equal(refused.statusCode, 404)
  t.match(refused.body, 'this lead has no appointment apt_nope')
})
