/**
 * The event store contract, run against the embedded store with its writes on a writer thread
 * (`writer: 'thread'`, what the server uses). Its own behaviour is in sqlite-writer-thread.test.ts.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { EventStore } from '../../src/eventstore/event-store.port.ts'
import { openSqliteEventStore, type SqliteEventStore } from '../../src/eventstore/sqlite/sqlite-event-store.adapter.ts'
import { eventStoreContract, type EventStoreHarness } from '../contract/event-store.contract.ts'

const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
const childScript = fileURLToPath(new URL('../helpers/append-in-child.ts', import.meta.url))

const root = t.testdir()
let opened = 0

function freshPath(): string {
  opened++
  return join(root, `store-${opened}`, 'events.db')
}

function openThreaded(path: string): SqliteEventStore {
  return openSqliteEventStore({ path, writer: 'thread' })
}

const harness: EventStoreHarness = {
  name: 'sqlite (writer thread)',
  async open() {
    return openThreaded(freshPath())
  },
  async openSecondClient(store) {
    return openThreaded((store as SqliteEventStore).path)
  },
  appendFromAnotherProcess(store: EventStore, stream: string, count: number) {
    return new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', childScript, (store as SqliteEventStore).path, stream, String(count)], {
        cwd: projectRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child.on('error', reject)
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`append-in-child exited with ${String(code)}: ${stderr}`))))
    })
  },
}

await eventStoreContract(t, harness)
