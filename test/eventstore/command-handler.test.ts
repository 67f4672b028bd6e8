/**
 * The command handler decides on the state its last command left (or on "a new stream") without
 * reading the stream, and still never acts on a stale state: an append names the revision the state
 * came from, and a decision that appends nothing or refuses is checked against the stream's head.
 */
import { join } from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { DomainError, type Decider } from '../../src/domain/shared/decider.ts'
import { CommandHandler } from '../../src/eventstore/command-handler.ts'
import { WrongExpectedRevisionError, isWrongExpectedRevision, type EventStore } from '../../src/eventstore/event-store.port.ts'
import { KeyedQueue } from '../../src/eventstore/keyed-queue.ts'
import { openSqliteEventStore } from '../../src/eventstore/sqlite/index.ts'

type TallyEvent =
  | { type: 'Opened'; data: Record<string, never> }
  | { type: 'Added'; data: { by: number } }
  | { type: 'Reset'; data: Record<string, never> }
  | { type: 'Closed'; data: Record<string, never> }
  | { type: 'Reopened'; data: Record<string, never> }

type TallyCommand =
  | { type: 'Open' }
  | { type: 'Add'; by: number }
  | { type: 'AddIfBelow'; limit: number; by: number }
  | { type: 'Reset' }
  | { type: 'Close' }
  | { type: 'Reopen' }

interface Tally {
  readonly open: boolean
  readonly closed: boolean
  readonly n: number
}

const tally: Decider<TallyCommand, TallyEvent, Tally> = {
  initialState: () => ({ open: false, closed: false, n: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'Opened':
        return { ...state, open: true }
      case 'Added':
        return { ...state, n: state.n + event.data.by }
      case 'Reset':
        return { ...state, n: 0 }
      case 'Closed':
        return { ...state, closed: true }
      case 'Reopened':
        return { ...state, closed: false }
    }
  },
  decide(command, state) {
    if (command.type === 'Open') return state.open ? [] : [{ type: 'Opened', data: {} }]
    if (!state.open) throw new DomainError('not_open', 'no such tally')
    switch (command.type) {
      case 'Add':
        if (state.closed) throw new DomainError('closed', 'the tally is closed')
        return [{ type: 'Added', data: { by: command.by } }]
      case 'AddIfBelow':
        return state.n >= command.limit ? [] : [{ type: 'Added', data: { by: command.by } }]
      case 'Reset':
        return [{ type: 'Reset', data: {} }]
      case 'Close':
        return [{ type: 'Closed', data: {} }]
      case 'Reopen':
        return state.closed ? [{ type: 'Reopened', data: {} }] : []
    }
  },
}

const context = { actor: { kind: 'operator', id: 'command-handler-test' } } as const

/** A store whose stream reads are counted. */
function counted(store: EventStore): { store: EventStore; reads: () => number } {
  let reads = 0
  const wrapped = Object.create(store) as EventStore
  wrapped.readStream = (...args) => {
    reads++
    return store.readStream(...args)
  }
  return { store: wrapped, reads: () => reads }
}

function twoClients(t: Test) {
  const path = join(t.testdir(), 'events.db')
  const one = openSqliteEventStore({ path })
  const two = openSqliteEventStore({ path })
  t.teardown(async () => {
    await one.close()
    await two.close()
  })
  return { one, two }
}

t.test('a new stream and then a kept state: no stream is read', async (t) => {
  const { one } = twoClients(t)
  const { store, reads } = counted(one)
  const commands = new CommandHandler(store)
  await commands.handle('tally-a', tally, { type: 'Open' }, context)
  await commands.handle('tally-a', tally, { type: 'Add', by: 2 }, context)
  const result = await commands.handle('tally-a', tally, { type: 'Add', by: 3 }, context)
  t.equal(reads(), 0, 'decided without reading')
  t.same(result.state, { open: true, closed: false, n: 5 })
  t.equal(result.revision, 2)
  t.same((await one.readStream('tally-a')).map((e) => e.type), ['Opened', 'Added', 'Added'])
})

t.test('a stream that exists but is not kept: taken as new, refused by the store, then decided on what is stored', async (t) => {
  const { one, two } = twoClients(t)
  await new CommandHandler(two).handle('tally-b', tally, { type: 'Open' }, context)
  await new CommandHandler(two).handle('tally-b', tally, { type: 'Add', by: 4 }, context)

  const commands = new CommandHandler(one)
  const opened = await commands.handle('tally-b', tally, { type: 'Open' }, context)
  t.same(opened.newEvents, [], 'already open: nothing appended')
  t.equal(opened.revision, 1)
  const added = await new CommandHandler(one).handle('tally-b', tally, { type: 'Add', by: 1 }, context)
  t.same(added.state.n, 5, 'a refusal on the assumed-new state is checked, then the command runs on the stored one')
  t.same((await one.readStream('tally-b')).map((e) => e.type), ['Opened', 'Added', 'Added'])
})

t.test('a kept state gone stale: the append conflicts and the command decides again on the stream, read once', async (t) => {
  const { one, two } = twoClients(t)
  const { store, reads } = counted(one)
  const mine = new CommandHandler(store)
  await mine.handle('tally-c', tally, { type: 'Open' }, context)
  await mine.handle('tally-c', tally, { type: 'Add', by: 1 }, context)
  await new CommandHandler(two).handle('tally-c', tally, { type: 'Add', by: 10 }, context)
  const result = await mine.handle('tally-c', tally, { type: 'Add', by: 100 }, context)
  t.equal(result.state.n, 111)
  t.equal(result.revision, 3)
  t.equal(reads(), 1, 'the stream read once')
  t.same((await one.readStream('tally-c')).map((e) => (e.data as { by?: number }).by ?? e.type), ['Opened', 1, 10, 100])
})

t.test('nothing to do, or a refusal, on a kept state is believed only once the stream is found unchanged', async (t) => {
  const { one, two } = twoClients(t)
  const mine = new CommandHandler(one)
  const theirs = new CommandHandler(two)
  await mine.handle('tally-d', tally, { type: 'Open' }, context)
  await mine.handle('tally-d', tally, { type: 'Add', by: 5 }, context)
  await theirs.handle('tally-d', tally, { type: 'Reset' }, context)
  const below = await mine.handle('tally-d', tally, { type: 'AddIfBelow', limit: 3, by: 1 }, context)
  t.equal(below.newEvents.length, 1, 'kept n=5 said "nothing to do"; the stream says n=0')
  t.equal(below.state.n, 1)

  await mine.handle('tally-d', tally, { type: 'Close' }, context)
  await theirs.handle('tally-d', tally, { type: 'Reopen' }, context)
  const added = await mine.handle('tally-d', tally, { type: 'Add', by: 2 }, context)
  t.equal(added.state.n, 3, 'kept "closed" refused; the stream says reopened')

  const unchanged = await mine.handle('tally-d', tally, { type: 'AddIfBelow', limit: 3, by: 1 }, context)
  t.same(unchanged.newEvents, [], 'nothing to do, and the stream agrees')
  await mine.handle('tally-d', tally, { type: 'Close' }, context)
  await t.rejects(mine.handle('tally-d', tally, { type: 'Add', by: 1 }, context), { code: 'closed' }, 'a refusal the stream agrees with')
  await t.rejects(new CommandHandler(one).handle('tally-none', tally, { type: 'Add', by: 1 }, context), { code: 'not_open' })
  t.same(await one.readStream('tally-none'), [], 'a refused command on a missing stream writes nothing')
})

t.test('commands on one stream run one at a time, in order; other streams do not wait', async (t) => {
  const queue = new KeyedQueue()
  const order: string[] = []
  const step = (name: string, ms: number) => () => new Promise<string>((resolve) => setTimeout(() => {
    order.push(name)
    resolve(name)
  }, ms))
  const a1 = queue.run('a', step('a1', 30))
  const a2 = queue.run('a', step('a2', 1))
  const failing = queue.run('a', () => Promise.reject(new Error('boom')))
  const a3 = queue.run('a', step('a3', 1))
  const b1 = queue.run('b', step('b1', 5))
  t.equal(queue.size, 2)
  t.same(await Promise.all([a1, a2, b1]), ['a1', 'a2', 'b1'])
  await t.rejects(failing, /boom/)
  t.equal(await a3, 'a3', 'a failed task does not stop the queue')
  t.same(order, ['b1', 'a1', 'a2', 'a3'])
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(queue.size, 0, 'drained keys are forgotten')
})
